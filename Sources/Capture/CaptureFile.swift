internal import Basics
internal import CZlib
internal import Glibc

/// One capture file being written: a gzip stream whose every flush ends on
/// a whole record, so a file cut anywhere reads up to its last flush.
final class CaptureFile {
    let path: String
    private var fd: Int32 = -1
    /// zlib keeps a pointer back to its stream: it must not move.
    private let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
    private var output = [UInt8](repeating: 0, count: 64 << 10)
    /// Compressed bytes written so far.
    private(set) var size: Int64 = 0
    /// Records compressed since the last flush.
    private(set) var unflushed = 0

    /// Creates `path` (0600; an existing file is an error) with the preamble
    /// and the header: the file appears only once they are on the disk.
    init(path: String, header: CaptureHeader) throws(CaptureError) {
        self.path = path
        // From here deinit cleans up, whatever fails.
        stream.initialize(to: z_stream())
        guard czlib_deflate_init_gzip(stream, 3) == Z_OK else {
            throw .file(path: path, operation: "start compressing", errno: 0, message: "zlib refused its settings")
        }
        let head = compress(CaptureCodec.preamble() + CaptureCodec.frame(CaptureCodec.encode(header)), flush: Z_SYNC_FLUSH)
        do {
            fd = try DurableFile.begin(path, head: head)
        } catch {
            throw Self.failure(path, error)
        }
        size = Int64(head.count)
    }

    deinit {
        deflateEnd(stream)
        stream.deallocate()
        if fd >= 0 { close(fd) }
    }

    func append(_ record: CaptureRecord) throws(CaptureError) {
        try write(compress(CaptureCodec.frame(CaptureCodec.encode(record)), flush: Z_NO_FLUSH))
        unflushed += 1
    }

    /// Ends the records so far on a byte boundary, and writes them to the
    /// disk: a power cut after this keeps them.
    func flush() throws(CaptureError) {
        guard unflushed > 0 else { return }
        try write(compress([], flush: Z_SYNC_FLUSH))
        try sync()
        unflushed = 0
    }

    /// Writes the gzip trailer to the disk; the file is complete.
    func finish() throws(CaptureError) {
        try write(compress([], flush: Z_FINISH))
        try sync()
        unflushed = 0
    }

    private func sync() throws(CaptureError) {
        guard fdatasync(fd) == 0 else { throw Self.failure(path, "sync it") }
    }

    /// What zlib makes of `bytes` (usually nothing until a flush).
    private func compress(_ bytes: [UInt8], flush: Int32) -> [UInt8] {
        var input = bytes
        var compressed: [UInt8] = []
        input.withUnsafeMutableBufferPointer { source in
            stream.pointee.next_in = source.baseAddress
            stream.pointee.avail_in = UInt32(source.count)
            repeat {
                let produced: Int = output.withUnsafeMutableBufferPointer { target in
                    stream.pointee.next_out = target.baseAddress
                    stream.pointee.avail_out = UInt32(target.count)
                    deflate(stream, flush)
                    return target.count - Int(stream.pointee.avail_out)
                }
                compressed.append(contentsOf: output[..<produced])
            } while stream.pointee.avail_out == 0 || stream.pointee.avail_in > 0
        }
        stream.pointee.next_in = nil
        return compressed
    }

    private func write(_ bytes: [UInt8]) throws(CaptureError) {
        var done = 0
        while done < bytes.count {
            let count = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + done, $0.count - done) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { throw Self.failure(path, "write it") }
            done += count
        }
        size += Int64(done)
    }

    static func failure(_ path: String, _ error: DurableFileError) -> CaptureError {
        switch error {
        case .exists: .file(path: path, operation: "create it", errno: EEXIST, message: String(cString: strerror(EEXIST)))
        case .notRegular(_, let kind): .file(path: path, operation: "create it", errno: EEXIST, message: "\(kind) is there")
        case .system(_, let operation, let code): .file(path: path, operation: operation, errno: code, message: String(cString: strerror(code)))
        }
    }

    static func failure(_ path: String, _ operation: String) -> CaptureError {
        let code = errno
        return .file(path: path, operation: operation, errno: code, message: String(cString: strerror(code)))
    }
}
