import BluetoothKernel
import Foundation

/// Device-found events written through a unix seqpacket socket, which
/// keeps message boundaries as the kernel's management channel does.
enum ManagementReplay {
    struct Failure: Error, CustomStringConvertible {
        var call: String
        var errno: Int32
        var description: String { "\(call) failed: errno \(errno)" }
    }

    /// `count` events from C0:FF:EE:00:00:01 on controller 0, each with a
    /// distinct RSSI and manufacturer payload, as the D-Bus burst has.
    static func burst(count: Int) -> [[UInt8]] {
        (0..<count).map { i in
            let payload = withUnsafeBytes(of: UInt32(i).littleEndian, Array.init)
            let data: [UInt8] = [0x02, 0x01, 0x06, UInt8(3 + payload.count), 0xFF, 0xFF, 0xFF] + payload
            return DeviceFound(address: 0xC0FF_EE00_0001, addressType: 1, rssi: Int8(-40 - i % 60), flags: 0, data: data).encoded(index: 0)
        }
    }

    static func listen(at path: String) throws -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Failure(call: "socket", errno: errno) }
        var address = unixAddress(path)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0, Glibc.listen(fd, 1) == 0 else { throw Failure(call: "bind/listen", errno: errno) }
        return fd
    }

    static func accept(_ listener: Int32) throws -> Int32 {
        let fd = Glibc.accept(listener, nil, nil)
        guard fd >= 0 else { throw Failure(call: "accept", errno: errno) }
        close(listener)
        return fd
    }

    static func connect(to path: String) throws -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Failure(call: "socket", errno: errno) }
        var address = unixAddress(path)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected == 0 else {
            let error = errno
            close(fd)
            throw Failure(call: "connect", errno: error)
        }
        // Room for the whole burst while the reader is stopped, as the
        // D-Bus burst waits in dbus-daemon (SO_SNDBUFFORCE needs root).
        var size: Int32 = 256 << 20
        guard setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &size, socklen_t(MemoryLayout<Int32>.size)) == 0 else {
            let error = errno
            close(fd)
            throw Failure(call: "setsockopt(SO_SNDBUFFORCE), which needs root,", errno: error)
        }
        return fd
    }

    /// Writes every event, blocking while the reader catches up.
    static func send(_ events: [[UInt8]], on fd: Int32) throws {
        for event in events {
            while true {
                let written = event.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
                if written == event.count { break }
                guard written < 0, errno == EINTR else { throw Failure(call: "write", errno: errno) }
            }
        }
    }

    private static func unixAddress(_ path: String) -> sockaddr_un {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (i, byte) in path.utf8.prefix(buffer.count - 1).enumerated() { buffer[i] = byte }
        }
        return address
    }
}
