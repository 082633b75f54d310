public import Foundation

/// Loopback ports for peers that listen on TCP.
public enum FreePort {
    /// A loopback port free to bind, below the kernel's ephemeral range
    /// (`ip_local_port_range`). A port inside it can be taken between the
    /// check and the peer's bind by any outgoing connection's source port,
    /// or by a client retrying a peer that is down: a loopback connect to a
    /// port nothing listens on may be given that same port as its source
    /// and connect to itself (TCP simultaneous open). A gpsd restarted on
    /// its old port then fails with "Address already in use".
    public static func tcp() throws -> Int {
        let ephemeral = (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8))
            .flatMap { $0.split(whereSeparator: \.isWhitespace).first.flatMap { Int($0) } } ?? 32_768
        if ephemeral > 12_000 {
            for _ in 0..<64 {
                let port = Int.random(in: 10_000..<ephemeral)
                if try bound(port) == port { return port }
            }
        }
        guard let any = try bound(0) else { throw PeerError.startFailed("a free TCP port", output: "none to bind") }
        return any
    }

    /// Binds and releases `port` on loopback (0: any the kernel picks);
    /// the port bound, or nil when it is taken.
    private static func bound(_ port: Int) throws -> Int? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        guard bound else {
            if port != 0, errno == EADDRINUSE || errno == EACCES { return nil }
            throw PeerError.startFailed("a free TCP port", output: String(cString: strerror(errno)))
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    public static func accepts(port: Int) -> Bool {
        guard let fd = connected(to: port) else { return false }
        close(fd)
        return true
    }

    /// A TCP socket connected to `port` on loopback (the caller closes it),
    /// or nil when nothing accepts there.
    static func connected(to port: Int) -> Int32? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
        guard connected else {
            close(fd)
            return nil
        }
        return fd
    }

    /// Waits until something listens on `port`, failing early if `process` exits.
    public static func waitForListener(port: Int, process: ChildProcess, timeout: TimeInterval = 20) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while !accepts(port: port) {
            guard process.isRunning else { throw PeerError.startFailed(process.program, output: process.output) }
            guard Date() < deadline else { throw PeerError.timedOut("\(process.program) to listen on \(port)") }
            usleep(5_000)
        }
    }

    /// A blocking HTTP/1.1 exchange with a test peer's control endpoint on
    /// loopback; returns the body.
    public static func exchange(port: Int, _ method: String, _ path: String, _ body: Data = Data()) throws -> Data {
        guard let fd = connected(to: port) else { throw PeerError.startFailed("peer on port \(port)", output: "connect failed") }
        defer { close(fd) }
        let head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Length: \(body.count)\r\n\r\n"
        let out = Data(head.utf8) + body
        _ = out.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        var response = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = read(fd, &buffer, buffer.count)
            guard count > 0 else { break }
            response.append(contentsOf: buffer[..<count])
        }
        guard let split = response.range(of: Data("\r\n\r\n".utf8)) else { return Data() }
        return response[split.upperBound...]
    }
}
