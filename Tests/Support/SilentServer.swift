import Foundation
import Synchronization

/// A TCP listener on loopback that accepts connections and, after an
/// optional scripted greeting, never answers: the half-open peer a no-data
/// watchdog must catch, or a peer replaying lines captured from a real one.
/// It records what each connection sent and notices when the client closes it.
public final class SilentServer: @unchecked Sendable {
    public let port: Int
    private let listener: Int32
    private let shared = Shared()

    private struct State {
        var received: [String] = []
        var closed = 0
    }

    private final class Shared: Sendable {
        let state = Mutex(State())
    }

    public init(greeting: String = "") throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.listener = listener
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ready = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, length) == 0 && getsockname(listener, $0, &length) == 0
            }
        } && listen(listener, 8) == 0
        guard ready else { throw PeerError.startFailed("a loopback listener", output: String(cString: strerror(errno))) }
        port = Int(UInt16(bigEndian: address.sin_port))
        let shared = shared
        Thread.detachNewThread {
            while true {
                let connection = accept(listener, nil, nil)
                guard connection >= 0 else { return }
                let index = shared.state.withLock { state in
                    state.received.append("")
                    return state.received.count - 1
                }
                if !greeting.isEmpty { _ = greeting.utf8CString.withUnsafeBufferPointer { write(connection, $0.baseAddress, $0.count - 1) } }
                Thread.detachNewThread {
                    var buffer = [UInt8](repeating: 0, count: 4096)
                    while true {
                        let count = read(connection, &buffer, buffer.count)
                        guard count > 0 else { break }
                        shared.state.withLock { $0.received[index] += String(decoding: buffer[..<count], as: UTF8.self) }
                    }
                    close(connection)
                    shared.state.withLock { $0.closed += 1 }
                }
            }
        }
    }

    deinit { shutdown(listener, Int32(SHUT_RDWR)); close(listener) }

    /// What each accepted connection has sent so far, in order of acceptance.
    public var received: [String] { shared.state.withLock { $0.received } }
    /// Connections the client has closed.
    public var closed: Int { shared.state.withLock { $0.closed } }

    /// Waits in real time, briefly, until `condition` holds.
    public func wait(for what: String, timeout: Duration = .seconds(20), _ condition: (SilentServer) -> Bool) async throws {
        let deadline = ContinuousClock.now + timeout
        while !condition(self) {
            guard ContinuousClock.now < deadline else { throw PeerError.timedOut(what) }
            try await Task.sleep(for: .milliseconds(2))
        }
    }
}
