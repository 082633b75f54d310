internal import Glibc

/// Checks that the configured location source can be reached: a TCP or unix
/// connect to gpsd, or a readable NMEA device. Runs off the cooperative pool.
struct LocationProbe {
    var source: LocationSource
    var timeout: Duration = .seconds(1)

    func missing() async -> [Requirement] {
        let source = source
        let milliseconds = Int32(timeout.components.seconds * 1000)
        return await Task.detached { Self.reachable(source, milliseconds) ? [] : [.location] }.value
    }

    private static func reachable(_ source: LocationSource, _ milliseconds: Int32) -> Bool {
        switch source {
        case .nmea(let device, _):
            return access(device, R_OK) == 0
        case .gpsdSocket(let path):
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            let bytes = Array(path.utf8)
            guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return false }
            withUnsafeMutableBytes(of: &address.sun_path) { buffer in
                for (i, byte) in bytes.enumerated() { buffer[i] = byte }
            }
            return connect(family: AF_UNIX, milliseconds) { fd in
                withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
                }
            }
        case .gpsd(let host, let port):
            var hints = addrinfo()
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
            var list: UnsafeMutablePointer<addrinfo>?
            guard getaddrinfo(host, String(port), &hints, &list) == 0, let list else { return false }
            defer { freeaddrinfo(list) }
            var entry: UnsafeMutablePointer<addrinfo>? = list
            while let current = entry {
                if connect(family: current.pointee.ai_family, milliseconds, { Glibc.connect($0, current.pointee.ai_addr, current.pointee.ai_addrlen) }) {
                    return true
                }
                entry = current.pointee.ai_next
            }
            return false
        }
    }

    /// A non-blocking connect bounded by `milliseconds`.
    private static func connect(family: Int32, _ milliseconds: Int32, _ start: (Int32) -> Int32) -> Bool {
        let fd = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        if start(fd) == 0 { return true }
        guard errno == EINPROGRESS else { return false }
        var poller = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
        guard poll(&poller, 1, milliseconds) == 1 else { return false }
        var error: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length)
        return error == 0
    }
}
