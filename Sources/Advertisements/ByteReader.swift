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

/// `AA:BB:CC:DD:EE:FF` from six bytes in display order.
func macString<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
    Hex.string(bytes, separator: ":", uppercase: true)
}
