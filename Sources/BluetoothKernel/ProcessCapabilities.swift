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
        guard let bytes = KernelFile.read("/proc/self/status") else { return nil }
        for line in bytes.split(separator: UInt8(ascii: "\n")) where line.starts(with: Array("CapEff:".utf8)) {
            let hex = String(decoding: line.dropFirst(7), as: UTF8.self).filter { $0 != " " && $0 != "\t" }
            return UInt64(hex, radix: 16)
        }
        return nil
    }
}
