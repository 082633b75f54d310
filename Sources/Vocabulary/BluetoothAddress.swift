internal import CBluetooth

/// A device's 48-bit Bluetooth address and, when known, its type, as BlueZ
/// writes it (`AA:BB:CC:DD:EE:FF`, upper case).
///
/// Parsing and formatting go through libbluetooth (`bachk`, `str2ba`,
/// `ba2str`). The 48 bits are kept in a word: no allocation per advert.
public struct BluetoothAddress: Sendable, Hashable, Comparable, LosslessStringConvertible, ExpressibleByStringLiteral {
    /// As BlueZ names it (`AddressType`).
    public enum Kind: String, Sendable {
        case `public`, random
    }

    /// What a random address is, from its two top bits (Core spec, Vol 6, Part B, 1.3).
    public enum RandomKind: Sendable {
        /// Fixed for a power cycle at least.
        case `static`
        /// Rotates; an Identity Resolving Key tells whose it is.
        case resolvable
        /// Rotates, and nothing tells whose it is.
        case nonResolvable
    }

    /// The 48 bits, most significant first.
    public let value: UInt64
    /// Nil when whoever reported the address did not say.
    public var kind: Kind?

    /// Parses `AA:BB:CC:DD:EE:FF` (either case); nil for anything else.
    public init?(_ text: String) {
        self.init(text, kind: nil)
    }

    public init?(_ text: String, kind: Kind?) {
        guard text.utf8.count == 17, bachk(text) == 0 else { return nil }
        var address = bdaddr_t()
        guard str2ba(text, &address) == 0 else { return nil }
        // bdaddr_t stores the bytes least significant first.
        let b = address.b
        self.init(value: [b.5, b.4, b.3, b.2, b.1, b.0].reduce(0) { $0 << 8 | UInt64($1) }, kind: kind)
    }

    public init(value: UInt64, kind: Kind? = nil) {
        self.value = value & 0xFFFF_FFFF_FFFF
        self.kind = kind
    }

    /// For literals in tests and examples; a malformed one is a programming error.
    public init(stringLiteral text: String) {
        guard let address = BluetoothAddress(text) else { preconditionFailure("not a Bluetooth address: \(text)") }
        self = address
    }

    /// Most significant first, in display order.
    public var bytes: [UInt8] { (0..<6).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64(5 - $0))) } }

    public var description: String {
        let bytes = bytes
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

    /// A random address's kind; nil for a public one, or one whose type is unknown.
    public var randomKind: RandomKind? {
        guard kind == .random else { return nil }
        switch value >> 46 {
        case 0b11: return .static
        case 0b01: return .resolvable
        case 0b00: return .nonResolvable
        default: return nil
        }
    }

    /// The same address, whatever type each says: a pairing made from
    /// text does not know its address's.
    public func sameDevice(as other: BluetoothAddress) -> Bool { value == other.value }

    public static func < (lhs: BluetoothAddress, rhs: BluetoothAddress) -> Bool {
        (lhs.value, lhs.kind?.rawValue ?? "") < (rhs.value, rhs.kind?.rawValue ?? "")
    }
}
