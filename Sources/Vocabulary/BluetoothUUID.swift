/// A Bluetooth UUID, 128 bits: a service data key. The 16- and 32-bit
/// forms an advert carries stand on the Bluetooth base UUID
/// (`0000xxxx-0000-1000-8000-00805f9b34fb`).
public struct BluetoothUUID: Hashable, Comparable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The first and last 64 bits, as the UUID is written.
    public let high: UInt64
    public let low: UInt64

    static let baseHigh: UInt64 = 0x0000_0000_0000_1000
    static let baseLow: UInt64 = 0x8000_0080_5F9B_34FB

    public init(high: UInt64, low: UInt64) {
        (self.high, self.low) = (high, low)
    }

    public init(short: UInt16) { self.init(uuid32: UInt32(short)) }

    public init(uuid32: UInt32) { self.init(high: UInt64(uuid32) << 32 | Self.baseHigh, low: Self.baseLow) }

    /// From an advert's AD structure: 2, 4 or 16 bytes, least significant
    /// first; nil for any other length.
    public init?(littleEndian bytes: some Collection<UInt8>) {
        let value = bytes.reversed().reduce(into: [UInt8]()) { $0.append($1) }
        switch value.count {
        case 2, 4: self.init(uuid32: value.reduce(0) { $0 << 8 | UInt32($1) })
        case 16: self.init(high: value[..<8].reduce(0) { $0 << 8 | UInt64($1) }, low: value[8...].reduce(0) { $0 << 8 | UInt64($1) })
        default: return nil
        }
    }

    /// From text: the 128-bit form with its dashes (BlueZ's), or a short
    /// form of 4 or 8 hex digits with or without `0x`, in either case; nil
    /// for anything else.
    public init?(_ text: String) {
        var digits = Array(text.utf8)
        if digits.count == 6 || digits.count == 10, digits[0] == UInt8(ascii: "0"), digits[1] | 0x20 == UInt8(ascii: "x") { digits.removeFirst(2) }
        func value(_ digits: ArraySlice<UInt8>) -> UInt64? {
            var value: UInt64 = 0
            for digit in digits {
                let nibble: UInt8
                switch digit {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = digit - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = digit - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): nibble = digit - UInt8(ascii: "A") + 10
                default: return nil
                }
                value = value << 4 | UInt64(nibble)
            }
            return value
        }
        switch digits.count {
        case 4, 8:
            guard let short = value(digits[...]) else { return nil }
            self.init(uuid32: UInt32(short))
        case 36:
            guard [8, 13, 18, 23].allSatisfy({ digits[$0] == UInt8(ascii: "-") }) else { return nil }
            let hex = digits.enumerated().filter { ![8, 13, 18, 23].contains($0.offset) }.map(\.element)
            guard let high = value(hex[..<16]), let low = value(hex[16...]) else { return nil }
            self.init(high: high, low: low)
        default:
            return nil
        }
    }

    /// A literal in the source (`"fcd2"`): a literal that is no UUID is a
    /// programming error and stops the program. Text from outside goes
    /// through `init?(_:)`.
    public init(stringLiteral text: String) {
        guard let uuid = BluetoothUUID(text) else { preconditionFailure("not a Bluetooth UUID: \(text)") }
        self = uuid
    }

    /// The 16-bit form, for a UUID on the base that has one.
    public var short: UInt16? {
        guard low == Self.baseLow, high & 0xFFFF_FFFF == Self.baseHigh, high >> 48 == 0 else { return nil }
        return UInt16(truncatingIfNeeded: high >> 32)
    }

    /// `0000feaa-0000-1000-8000-00805f9b34fb`, as BlueZ writes it.
    public var description: String {
        let hex = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(36)
        for (index, word) in [high, low].enumerated() {
            for nibble in 0..<16 {
                let position = index * 16 + nibble
                if position == 8 || position == 12 || position == 16 || position == 20 { text.append(UInt8(ascii: "-")) }
                text.append(hex[Int(word >> (60 - 4 * UInt64(nibble)) & 0xF)])
            }
        }
        return String(decoding: text, as: UTF8.self)
    }

    public static func < (lhs: Self, rhs: Self) -> Bool { (lhs.high, lhs.low) < (rhs.high, rhs.low) }
}
