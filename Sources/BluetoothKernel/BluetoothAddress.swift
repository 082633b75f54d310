internal import CBluetooth

/// A 48-bit Bluetooth device address, as BlueZ writes it (`AA:BB:CC:DD:EE:FF`).
///
/// Parsing and formatting go through libbluetooth (`bachk`, `str2ba`,
/// `ba2str`). The six bytes are kept most significant first, in display order.
public struct BluetoothAddress: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let bytes: [UInt8]

    /// Parses `AA:BB:CC:DD:EE:FF` (either case); nil for anything else.
    public init?(_ text: String) {
        guard text.utf8.count == 17, bachk(text) == 0 else { return nil }
        var address = bdaddr_t()
        guard str2ba(text, &address) == 0 else { return nil }
        // bdaddr_t stores the bytes least significant first.
        let b = address.b
        bytes = [b.5, b.4, b.3, b.2, b.1, b.0]
    }

    public init?(bytes: [UInt8]) {
        guard bytes.count == 6 else { return nil }
        self.bytes = bytes
    }

    /// The 48 bits, most significant first.
    public var value: UInt64 { bytes.reduce(0) { $0 << 8 | UInt64($1) } }

    public init(value: UInt64) {
        bytes = (0..<6).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64(5 - $0))) }
    }

    public var description: String {
        var address = bdaddr_t()
        address.b = (bytes[5], bytes[4], bytes[3], bytes[2], bytes[1], bytes[0])
        var text = [CChar](repeating: 0, count: 18)
        ba2str(&address, &text)
        return String(decoding: text.prefix(17).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The form BlueZ uses in object paths: `dev_AA_BB_CC_DD_EE_FF`.
    public var objectPathComponent: String {
        "dev_" + description.split(separator: ":").joined(separator: "_")
    }

    public static func < (lhs: BluetoothAddress, rhs: BluetoothAddress) -> Bool {
        lhs.bytes.lexicographicallyPrecedes(rhs.bytes)
    }
}
