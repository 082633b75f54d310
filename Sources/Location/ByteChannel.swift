internal import Dispatch
internal import Glibc

/// A non-blocking file descriptor (socket, tty, FIFO) read through a Dispatch
/// source: chunks arrive as they come, with no polling. The stream finishes at
/// end of file, on a read error, or on `close()`, and the descriptor is closed
/// exactly once, when the source is cancelled.
final class ByteChannel: Sendable {
    let chunks: AsyncStream<[UInt8]>
    /// Dispatch sources are thread-safe; the type just is not marked Sendable.
    private nonisolated(unsafe) let source: any DispatchSourceRead
    private let descriptor: Int32

    init(adopting fd: Int32, queue: DispatchQueue = DispatchQueue(label: "waymark.location.read")) {
        descriptor = fd
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        let (stream, sink) = AsyncStream.makeStream(of: [UInt8].self, bufferingPolicy: .bufferingNewest(1024))
        chunks = stream
        let source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
        self.source = source
        nonisolated(unsafe) let weakSource = source
        source.setEventHandler {
            var buffer = [UInt8](repeating: 0, count: 16384)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if count > 0 {
                    sink.yield(Array(buffer[..<count]))
                    if count < buffer.count { return }
                } else if count < 0, errno == EINTR {
                    continue
                } else if count < 0, errno == EAGAIN {
                    return
                } else {
                    weakSource.cancel()
                    return
                }
            }
        }
        source.setCancelHandler {
            Glibc.close(fd)
            sink.finish()
        }
        source.resume()
    }

    /// Writes a short command. The socket is non-blocking; a command that
    /// does not fit in the send buffer means the peer is not reading, and the
    /// no-data watchdog will deal with it.
    @discardableResult
    func write(_ text: String) -> Bool {
        guard !source.isCancelled else { return false }
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } == bytes.count
    }

    func close() { source.cancel() }
}
