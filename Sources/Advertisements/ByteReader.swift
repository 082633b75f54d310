internal import Basics

/// Bounds-checked reads from a byte slice. Every read returns nil past the
/// end, so no input can make a decoder trap.
struct ByteReader {
    let bytes: [UInt8]
    private(set) var offset: Int

    init(_ bytes: [UInt8], offset: Int = 0) {
        self.bytes = bytes
        self.offset = offset
    }

    var remaining: Int { max(bytes.count - offset, 0) }
    var isAtEnd: Bool { remaining == 0 }

    mutating func take(_ count: Int) -> ArraySlice<UInt8>? {
        guard count >= 0, remaining >= count else { return nil }
        defer { offset += count }
        return bytes[offset..<offset + count]
    }

    mutating func u8() -> UInt8? { take(1)?.first }

    /// An unsigned little-endian integer of `count` bytes (1…8).
    mutating func littleEndian(_ count: Int) -> UInt64? {
        guard count >= 0, remaining >= count else { return nil }
        var value: UInt64 = 0
        for i in stride(from: offset + count - 1, through: offset, by: -1) { value = value << 8 | UInt64(bytes[i]) }
        offset += count
        return value
    }

    /// An unsigned big-endian integer of `count` bytes (1…8).
    mutating func bigEndian(_ count: Int) -> UInt64? {
        guard count >= 0, remaining >= count else { return nil }
        var value: UInt64 = 0
        for i in offset..<offset + count { value = value << 8 | UInt64(bytes[i]) }
        offset += count
        return value
    }

    /// The next `count` (≤ 16) bytes, kept inline.
    mutating func byteString(_ count: Int) -> ByteString? {
        guard count >= 0, count <= 16, remaining >= count else { return nil }
        defer { offset += count }
        return ByteString(bytes, from: offset, count: count)
    }
}

extension UInt64 {
    /// Reinterprets the low `bytes` bytes as a two's-complement signed value.
    func signExtended(fromBytes bytes: Int) -> Int64 {
        let shift = UInt64(64 - bytes * 8)
        return Int64(bitPattern: self << shift) >> Int64(shift)
    }
}

enum Hex {
    private static let digits: [UInt8] = Array("0123456789abcdef".utf8)

    /// Lowercase hex, with `separator` (one ASCII character or none) between bytes.
    static func string<C: Collection>(_ bytes: C, separator: Character? = nil, uppercase: Bool = false) -> String where C.Element == UInt8 {
        let count = bytes.count
        guard count > 0 else { return "" }
        let separatorByte = separator?.asciiValue
        let length = count * 2 + (separatorByte == nil ? 0 : count - 1)
        let letterOffset: UInt8 = uppercase ? 0x20 : 0
        return String(unsafeUninitializedCapacity: length) { buffer in
            var i = 0
            for byte in bytes {
                if i > 0, let separatorByte {
                    buffer[i] = separatorByte
                    i += 1
                }
                let high = digits[Int(byte >> 4)], low = digits[Int(byte & 0xF)]
                buffer[i] = high > 0x39 ? high - letterOffset : high
                buffer[i + 1] = low > 0x39 ? low - letterOffset : low
                i += 2
            }
            return length
        }
    }

    /// Parses hex digits (either case), ignoring nothing; nil on any other text.
    static func bytes(_ text: some StringProtocol) -> [UInt8]? {
        let utf8 = Array(text.utf8)
        guard utf8.count % 2 == 0 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(utf8.count / 2)
        var index = 0
        while index < utf8.count {
            guard let high = HexDigit.value(utf8[index]), let low = HexDigit.value(utf8[index + 1]) else { return nil }
            out.append(high << 4 | low)
            index += 2
        }
        return out
    }
}

/// `AA:BB:CC:DD:EE:FF` from six bytes in display order.
func macString<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
    Hex.string(bytes, separator: ":", uppercase: true)
}
