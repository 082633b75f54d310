internal import Glibc

/// sd_notify(3) without libsystemd: one datagram to `$NOTIFY_SOCKET`.
/// Does nothing when not started by systemd.
package enum SystemdNotifier {
    /// `NOTIFY_SOCKET`, which systemd passes to a `Type=notify` unit; nil without it.
    package static var notifySocket: String? {
        getenv("NOTIFY_SOCKET").map { String(cString: $0) }
    }

    static func notify(_ state: String, to notifySocket: String?) {
        guard let path = notifySocket, !path.isEmpty else { return }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var bytes = Array(path.utf8)
        // A leading '@' names a socket in the abstract namespace.
        if bytes.first == UInt8(ascii: "@") { bytes[0] = 0 }
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return }
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (i, byte) in bytes.enumerated() { buffer[i] = byte }
        }
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return }
        defer { close(fd) }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count)
        _ = state.withCString { text in
            withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { sendto(fd, text, strlen(text), 0, $0, length) }
            }
        }
    }

    /// `WATCHDOG_USEC`, which systemd passes with `WatchdogSec=`; nil without it.
    package static var watchdogMicroseconds: UInt64? {
        getenv("WATCHDOG_USEC").map { String(cString: $0) }.flatMap { UInt64($0) }
    }
}
