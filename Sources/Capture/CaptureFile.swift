internal import CZlib
internal import Glibc

/// One capture file being written: a gzip stream whose every flush ends on
/// a whole record, so a file cut anywhere reads up to its last flush.
final class CaptureFile {
    let path: String
    private let fd: Int32
    /// zlib keeps a pointer back to its stream: it must not move.
    private let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
    private var output = [UInt8](repeating: 0, count: 64 << 10)
    /// Compressed bytes written so far.
    private(set) var size: Int64 = 0
    /// Records compressed since the last flush.
    private(set) var unflushed = 0

    /// Creates `path` (0600; an existing file is an error) and writes the preamble and the header.
    init(path: String, header: CaptureHeader) throws(CaptureError) {
        self.path = path
        fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw Self.failure(path, "create it") }
        stream.initialize(to: z_stream())
        guard czlib_deflate_init_gzip(stream, 3) == Z_OK else {
            close(fd)
            stream.deallocate()
            throw .file(path: path, operation: "start compressing", errno: 0, message: "zlib refused its settings")
        }
        try compress(CaptureCodec.preamble() + CaptureCodec.frame(CaptureCodec.encode(header)), flush: Z_SYNC_FLUSH)
    }

    deinit {
        deflateEnd(stream)
        stream.deallocate()
        if fd >= 0 { close(fd) }
    }

    func append(_ record: CaptureRecord) throws(CaptureError) {
        try compress(CaptureCodec.frame(CaptureCodec.encode(record)), flush: Z_NO_FLUSH)
        unflushed += 1
    }

    /// Ends the records so far on a byte boundary, and writes them.
    func flush() throws(CaptureError) {
        guard unflushed > 0 else { return }
        try compress([], flush: Z_SYNC_FLUSH)
        unflushed = 0
    }

    /// Writes the gzip trailer; the file is complete.
    func finish() throws(CaptureError) {
        try compress([], flush: Z_FINISH)
        unflushed = 0
    }

    private func compress(_ bytes: [UInt8], flush: Int32) throws(CaptureError) {
        var input = bytes
        var failed: CaptureError?
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
                if produced > 0, let error = write(output[..<produced]) {
                    failed = error
                    return
                }
            } while stream.pointee.avail_out == 0 || stream.pointee.avail_in > 0
        }
        stream.pointee.next_in = nil
        if let failed { throw failed }
    }

    private func write(_ bytes: ArraySlice<UInt8>) -> CaptureError? {
        var done = 0
        while done < bytes.count {
            let count = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + done, $0.count - done) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return Self.failure(path, "write it") }
            done += count
        }
        size += Int64(done)
        return nil
    }

    static func failure(_ path: String, _ operation: String) -> CaptureError {
        let code = errno
        return .file(path: path, operation: operation, errno: code, message: String(cString: strerror(code)))
    }
}
