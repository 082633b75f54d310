/// A short byte string kept inline (up to 16 bytes, no heap), for the
/// identifiers decoders read: UUIDs, namespaces, MACs. Formatting into text
/// happens only when someone asks, which keeps decoding allocation-free.
public struct ByteString: Sendable, Hashable {
    private var high: UInt64 = 0
    private var low: UInt64 = 0
    public let count: Int

    init<C: Collection>(_ bytes: C) where C.Element == UInt8 {
        precondition(bytes.count <= 16)
        count = bytes.count
        var index = 0
        for byte in bytes {
            if index < 8 { high |= UInt64(byte) << (56 - 8 * index) } else { low |= UInt64(byte) << (56 - 8 * (index - 8)) }
            index += 1
        }
    }

    init(_ source: [UInt8], from start: Int, count: Int) {
        self.count = count
        if count == 16 {
            // UUIDs: two unaligned 8-byte loads instead of sixteen shifts.
            (high, low) = source.withUnsafeBytes { raw in
                (UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: start, as: UInt64.self)),
                 UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: start + 8, as: UInt64.self)))
            }
            return
        }
        for i in 0..<count {
            let byte = UInt64(source[start + i])
            if i < 8 { high |= byte << (56 - 8 * i) } else { low |= byte << (56 - 8 * (i - 8)) }
        }
    }

    public var bytes: [UInt8] {
        (0..<count).map { i in UInt8(truncatingIfNeeded: i < 8 ? high >> (56 - 8 * i) : low >> (56 - 8 * (i - 8))) }
    }

    /// Lowercase hex without separators.
    public var hex: String { Hex.string(bytes) }

    /// `8-4-4-4-12` lowercase, for a 16-byte UUID.
    public var uuid: String {
        let hex = Array(self.hex.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(36)
        for (i, c) in hex.enumerated() {
            if i == 8 || i == 12 || i == 16 || i == 20 { out.append(UInt8(ascii: "-")) }
            out.append(c)
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// `AA:BB:CC:DD:EE:FF`, for a 6-byte address.
    public var mac: String { macString(bytes) }

    /// Whether every byte is 0xFF (Ruuvi's "no MAC").
    var isAllOnes: Bool { bytes.allSatisfy { $0 == 0xFF } }
}
