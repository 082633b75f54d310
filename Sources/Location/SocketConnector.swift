internal import Glibc

/// Opens stream sockets to gpsd: TCP to a host and port (every address the
/// name resolves to, in order) or a unix socket path, each bounded in time.
enum SocketConnector {
    enum Failure: Error, Sendable, Equatable {
        case resolve(host: String)
        case connect(errno: Int32)
        case pathTooLong(String)
    }

    /// A connected descriptor, or why not. Blocking: call off the cooperative pool.
    static func connect(to source: LocationSource, timeout: Duration) throws(Failure) -> Int32 {
        let milliseconds = Int32(timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        switch source {
        case .gpsdSocket(let path):
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            let bytes = Array(path.utf8)
            guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { throw .pathTooLong(path) }
            withUnsafeMutableBytes(of: &address.sun_path) { buffer in
                for (i, byte) in bytes.enumerated() { buffer[i] = byte }
            }
            return try open(family: AF_UNIX, milliseconds) { fd in
                withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
                }
            }
        case .gpsd(let host, let port):
            var hints = addrinfo()
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
            var list: UnsafeMutablePointer<addrinfo>?
            guard getaddrinfo(host, String(port), &hints, &list) == 0, let list else { throw .resolve(host: host) }
            defer { freeaddrinfo(list) }
            var entry: UnsafeMutablePointer<addrinfo>? = list
            var last = Failure.connect(errno: ECONNREFUSED)
            while let current = entry {
                do {
                    return try open(family: current.pointee.ai_family, milliseconds) { Glibc.connect($0, current.pointee.ai_addr, current.pointee.ai_addrlen) }
                } catch {
                    last = error
                }
                entry = current.pointee.ai_next
            }
            throw last
        case .nmea:
            throw .connect(errno: EINVAL)
        }
    }

    /// A non-blocking connect bounded by `milliseconds`; the descriptor is
    /// returned non-blocking and close-on-exec.
    private static func open(family: Int32, _ milliseconds: Int32, _ start: (Int32) -> Int32) throws(Failure) -> Int32 {
        let fd = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .connect(errno: errno) }
        if start(fd) == 0 { return fd }
        guard errno == EINPROGRESS else {
            let error = errno
            close(fd)
            throw .connect(errno: error)
        }
        var poller = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
        var error: Int32 = ETIMEDOUT
        if poll(&poller, 1, milliseconds) == 1 {
            var length = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length)
        }
        guard error == 0 else {
            close(fd)
            throw .connect(errno: error)
        }
        return fd
    }
}
