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
    /// first; nil for any other length. No allocation: it runs per advert.
    public init?(littleEndian bytes: some Collection<UInt8>) {
        switch bytes.count {
        case 2, 4:
            var value: UInt32 = 0
            for (index, byte) in bytes.enumerated() { value |= UInt32(byte) << (8 * UInt32(index)) }
            self.init(uuid32: value)
        case 16:
            var (high, low): (UInt64, UInt64) = (0, 0)
            for (index, byte) in bytes.enumerated() {
                if index < 8 { low |= UInt64(byte) << (8 * UInt64(index)) } else { high |= UInt64(byte) << (8 * UInt64(index - 8)) }
            }
            self.init(high: high, low: low)
        default:
            return nil
        }
    }

    /// From text: the 128-bit form with its dashes (BlueZ's), or a short
    /// form of 4 or 8 hex digits with or without `0x`, in either case; nil
    /// for anything else. One pass over the bytes, no allocation.
    public init?(_ text: String) {
        var bytes = text.utf8[...]
        if bytes.count == 6 || bytes.count == 10, bytes.first == UInt8(ascii: "0"), let x = bytes.dropFirst().first, x | 0x20 == UInt8(ascii: "x") {
            bytes = bytes.dropFirst(2)
        }
        func nibble(_ digit: UInt8) -> UInt64? {
            switch digit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt64(digit - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt64(digit - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt64(digit - UInt8(ascii: "A") + 10)
            default: nil
            }
        }
        switch bytes.count {
        case 4, 8:
            var value: UInt64 = 0
            for digit in bytes {
                guard let nibble = nibble(digit) else { return nil }
                value = value << 4 | nibble
            }
            self.init(uuid32: UInt32(value))
        case 36:
            var (high, low, digits): (UInt64, UInt64, Int) = (0, 0, 0)
            for (position, byte) in bytes.enumerated() {
                if position == 8 || position == 13 || position == 18 || position == 23 {
                    guard byte == UInt8(ascii: "-") else { return nil }
                    continue
                }
                guard let nibble = nibble(byte) else { return nil }
                if digits < 16 { high = high << 4 | nibble } else { low = low << 4 | nibble }
                digits += 1
            }
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
