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
        guard let slice = take(count) else { return nil }
        return slice.reversed().reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// An unsigned big-endian integer of `count` bytes (1…8).
    mutating func bigEndian(_ count: Int) -> UInt64? {
        guard let slice = take(count) else { return nil }
        return slice.reduce(0) { $0 << 8 | UInt64($1) }
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
    static func string<S: Sequence>(_ bytes: S, separator: String = "") -> String where S.Element == UInt8 {
        let digits = Array("0123456789abcdef")
        return bytes.map { String([digits[Int($0 >> 4)], digits[Int($0 & 0xF)]]) }.joined(separator: separator)
    }

    /// Parses hex digits (either case), ignoring nothing; nil on any other text.
    static func bytes(_ text: some StringProtocol) -> [UInt8]? {
        let utf8 = Array(text.utf8)
        guard utf8.count % 2 == 0 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(utf8.count / 2)
        var index = 0
        while index < utf8.count {
            guard let high = nibble(utf8[index]), let low = nibble(utf8[index + 1]) else { return nil }
            out.append(high << 4 | low)
            index += 2
        }
        return out
    }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case 0x30...0x39: c - 0x30
        case 0x41...0x46: c - 0x41 + 10
        case 0x61...0x66: c - 0x61 + 10
        default: nil
        }
    }
}

/// `AA:BB:CC:DD:EE:FF` from six bytes in display order.
func macString<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
    Hex.string(bytes, separator: ":").uppercased()
}

/// A 16-byte UUID in its canonical lowercase form.
func uuidString<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
    let hex = Hex.string(bytes)
    let parts = [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { range in
        String(hex.dropFirst(range.lowerBound).prefix(range.count))
    }
    return parts.joined(separator: "-")
}
