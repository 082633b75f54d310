/// Why the management channel cannot be read.
public enum ManagementSocketError: Error, Equatable, CustomStringConvertible {
    /// The process lacks `CAP_NET_ADMIN`, so the kernel would send it no adverts.
    case notPermitted
    /// The kernel has no Bluetooth (`AF_BLUETOOTH` unsupported).
    case noBluetooth
    case failed(call: String, errno: Int32)
    /// The kernel answered command `opcode` with a non-zero status.
    case refused(opcode: UInt16, status: UInt8)
    /// No reply to command `opcode` in time.
    case timedOut(opcode: UInt16)
    /// What was asked cannot work here, and why.
    case unsuitable(String)

    public var description: String {
        switch self {
        case .notPermitted: "the process lacks CAP_NET_ADMIN, which the kernel's management channel requires"
        case .noBluetooth: "the kernel has no Bluetooth support (AF_BLUETOOTH)"
        case .failed(let call, let errno): "\(call) on the management channel failed (errno \(errno))"
        case .refused(let opcode, let status):
            "the kernel refused management command 0x\(String(opcode, radix: 16)) (status 0x\(String(status, radix: 16)))"
        case .timedOut(let opcode): "no reply to management command 0x\(String(opcode, radix: 16)) in time"
        case .unsuitable(let why): why
        }
    }
}
