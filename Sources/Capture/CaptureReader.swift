internal import CZlib
internal import Glibc

/// Reads a capture record by record, in constant memory. A file cut by a
/// power loss, or damaged, reads up to its last whole record; `stop` then
/// says where and why it ended.
public final class CaptureReader {
    public enum Stop: Sendable, Equatable {
        /// Every record was read, up to the gzip trailer.
        case complete
        /// The file ends inside a record or inside the compressed stream: a
        /// cut, such as a power loss leaves.
        case cut(afterRecords: Int, atByte: Int64)
        /// Bytes that are not a capture record (a bad checksum, an unknown
        /// type, compressed data that does not inflate).
        case damaged(afterRecords: Int, atByte: Int64, reason: String)
    }

    public let path: String
    public private(set) var header = CaptureHeader(waymarkVersion: "", started: 0, bootID: "", config: "", pairings: "")
    /// Records read so far.
    public private(set) var records = 0
    /// Set once `next()` has returned nil.
    public private(set) var stop: Stop?

    private enum Source {
        case file(Int32)
        case memory([UInt8], offset: Int)
    }

    private var source: Source
    private let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
    private var inflated: [UInt8] = []
    private var start = 0
    /// Compressed bytes consumed by zlib.
    private var consumed: Int64 = 0
    private var streamEnded = false
    private var sourceEnded = false
    private var inflateError: String?
    private var released = false

    /// Opens a capture file and reads its header.
    public convenience init(path: String) throws(CaptureError) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw CaptureFile.failure(path, "open it") }
        try self.init(path: path, source: .file(fd))
    }

    /// Reads a capture held in memory (tests and fuzzing).
    public convenience init(bytes: [UInt8], name: String = "capture") throws(CaptureError) {
        try self.init(path: name, source: .memory(bytes, offset: 0))
    }

    private init(path: String, source: Source) throws(CaptureError) {
        self.path = path
        self.source = source
        stream.initialize(to: z_stream())
        guard czlib_inflate_init_gzip(stream) == Z_OK else {
            stream.deallocate()
            if case .file(let fd) = source { close(fd) }
            released = true
            throw .malformed("zlib refused to start inflating")
        }
        while inflated.count < CaptureCodec.preambleSize, fill() {}
        let preamble = Array(inflated.prefix(CaptureCodec.preambleSize))
        guard preamble.count == CaptureCodec.preambleSize, preamble.starts(with: CaptureCodec.magic) else {
            release()
            throw .notACapture(path: path)
        }
        let format = UInt16(preamble[6]) | UInt16(preamble[7]) << 8
        guard format <= CaptureHeader.currentFormat else {
            release()
            throw .newerFormat(path: path, format: format, supported: CaptureHeader.currentFormat)
        }
        start = CaptureCodec.preambleSize
        do throws(CaptureError) {
            guard let body = try nextBody() else { throw CaptureError.malformed("the file ends before its header") }
            header = try CaptureCodec.header(body, format: format)
        } catch {
            release()
            throw error
        }
    }

    deinit { release() }

    /// The next record; nil at the end of what can be read (see `stop`).
    public func next() -> CaptureRecord? {
        guard stop == nil else { return nil }
        do {
            guard let body = try nextBody() else {
                stop = streamEnded && start == inflated.count ? .complete : inflateError.map { .damaged(afterRecords: records, atByte: consumed, reason: $0) }
                    ?? .cut(afterRecords: records, atByte: consumed)
                return nil
            }
            let record = try CaptureCodec.record(body)
            records += 1
            return record
        } catch {
            stop = .damaged(afterRecords: records, atByte: consumed, reason: error.description)
            return nil
        }
    }

    /// The next framed body, its checksum checked; nil when the bytes run out.
    private func nextBody() throws(CaptureError) -> [UInt8]? {
        while inflated.count - start < 4 { guard fill() else { return nil } }
        let length = inflated[start..<start + 4].reversed().reduce(0) { $0 << 8 | Int($1) }
        guard length <= CaptureCodec.maximumBody else { throw .malformed("a record claims \(length) bytes, more than any record has") }
        while inflated.count - start < 8 + length { guard fill() else { return nil } }
        let body = Array(inflated[start + 4..<start + 4 + length])
        let stored = inflated[start + 4 + length..<start + 8 + length].reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        guard stored == CaptureCodec.checksum(body) else { throw .malformed("record \(records + 1) fails its checksum") }
        start += 8 + length
        return body
    }

    /// Inflates more; false when nothing more can come.
    private func fill() -> Bool {
        if start > 1 << 20 {
            inflated.removeFirst(start)
            start = 0
        }
        while !streamEnded, inflateError == nil {
            var chunk: [UInt8]
            switch source {
            case .file(let fd):
                chunk = [UInt8](repeating: 0, count: sourceEnded ? 0 : 64 << 10)
                if !sourceEnded {
                    var count: Int
                    repeat { count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) } } while count < 0 && errno == EINTR
                    chunk.removeLast(chunk.count - max(0, count))
                    if count <= 0 { sourceEnded = true }
                }
            case .memory(let bytes, let offset):
                let end = min(bytes.count, offset + (64 << 10))
                chunk = Array(bytes[offset..<end])
                source = .memory(bytes, offset: end)
                if chunk.isEmpty { sourceEnded = true }
            }
            if chunk.isEmpty && sourceEnded { return false }
            let before = inflated.count
            inflate(chunk)
            if inflated.count > before { return true }
        }
        return false
    }

    private func inflate(_ input: [UInt8]) {
        var input = input
        var output = [UInt8](repeating: 0, count: 256 << 10)
        input.withUnsafeMutableBufferPointer { source in
            stream.pointee.next_in = source.baseAddress
            stream.pointee.avail_in = UInt32(source.count)
            repeat {
                let (status, produced): (Int32, Int) = output.withUnsafeMutableBufferPointer { target in
                    stream.pointee.next_out = target.baseAddress
                    stream.pointee.avail_out = UInt32(target.count)
                    let status = CZlib.inflate(stream, Z_NO_FLUSH)
                    return (status, target.count - Int(stream.pointee.avail_out))
                }
                inflated += output[..<produced]
                switch status {
                case Z_STREAM_END: streamEnded = true
                case Z_OK, Z_BUF_ERROR: break
                default: inflateError = "the compressed stream is damaged (zlib \(status))"
                }
                if streamEnded || inflateError != nil || (produced == 0 && status == Z_BUF_ERROR) { break }
            } while stream.pointee.avail_in > 0 || stream.pointee.avail_out == 0
            consumed += Int64(source.count - Int(stream.pointee.avail_in))
        }
        stream.pointee.next_in = nil
    }

    private func release() {
        guard !released else { return }
        released = true
        if case .file(let fd) = source { close(fd) }
        inflateEnd(stream)
        stream.deallocate()
    }
}
