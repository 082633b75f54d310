internal import Basics

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
