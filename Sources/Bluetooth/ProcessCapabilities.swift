internal import Glibc

/// The calling process's effective capabilities, as the kernel reports
/// them in `/proc/self/status`.
public enum ProcessCapabilities {
    /// `CAP_NET_ADMIN`: binds a trusted management socket.
    public static let netAdmin = 12

    /// Whether capability number `capability` is effective now.
    public static func effective(contains capability: Int) -> Bool {
        guard let mask = effectiveMask() else { return false }
        return mask & (1 << UInt64(capability)) != 0
    }

    static func effectiveMask() -> UInt64? {
        let fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { _ = close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while bytes.count < 1 << 16 {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            bytes += chunk[..<count]
        }
        for line in bytes.split(separator: UInt8(ascii: "\n")) where line.starts(with: Array("CapEff:".utf8)) {
            let hex = String(decoding: line.dropFirst(7), as: UTF8.self).trimmingCharacters(in: [" ", "\t"])
            return UInt64(hex, radix: 16)
        }
        return nil
    }
}

extension String {
    fileprivate func trimmingCharacters(in set: Set<Character>) -> String {
        String(drop { set.contains($0) }.reversed().drop { set.contains($0) }.reversed())
    }
}
