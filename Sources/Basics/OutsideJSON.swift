internal import FoundationEssentials

/// JSON from outside the gateway (a server's answer, a token's claims),
/// decoded without trusting its strings.
///
/// Foundation 6.0's `JSONDecoder`, in Debian 13's swiftlang that Raspberry
/// Pi OS builds with, decodes an object's keys inside a `try!`: a key that
/// is not UTF-8, holds a raw control character or a bad escape traps
/// instead of throwing (fixed in swift-foundation after 6.0, PR 1043). A
/// server's answer must never stop the daemon, so every string is checked
/// here first and such a document is refused with an error.
package enum OutsideJSON {
    package static func decode<T: Decodable>(_ type: T.Type, from bytes: some Collection<UInt8>) throws -> T {
        let bytes = Array(bytes)
        if let (offset, problem) = firstBadString(bytes) {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "\(problem) at byte \(offset)"))
        }
        return try JSONDecoder().decode(type, from: Data(bytes))
    }

    /// Where the first malformed string starts to go wrong, and how; nil
    /// when every string is well formed.
    static func firstBadString(_ bytes: [UInt8]) -> (Int, String)? {
        var utf8 = UTF8()
        var iterator = bytes.makeIterator()
        var offset = 0
        decoding: while true {
            switch utf8.decode(&iterator) {
            case .scalarValue(let scalar): offset += UTF8.width(scalar)
            case .emptyInput: break decoding
            case .error: return (offset, "not UTF-8")
            }
        }
        var index = 0
        var inString = false
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            guard inString else {
                inString = byte == UInt8(ascii: "\"")
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = false
            case ..<0x20: return (index - 1, "a control character in a string")
            case UInt8(ascii: "\\"):
                guard index < bytes.count else { return (index - 1, "an escape cut short") }
                let escape = bytes[index]
                index += 1
                if simpleEscapes.contains(escape) { continue }
                guard escape == UInt8(ascii: "u"), let unit = codeUnit(bytes, at: index) else { return (index - 2, "a bad escape") }
                index += 4
                switch unit {
                case 0xD800...0xDBFF:
                    guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u"),
                          let low = codeUnit(bytes, at: index + 2), (0xDC00...0xDFFF).contains(low) else {
                        return (index - 6, "an unpaired surrogate")
                    }
                    index += 6
                case 0xDC00...0xDFFF: return (index - 6, "an unpaired surrogate")
                default: break
                }
            default: break
            }
        }
        return inString ? (bytes.count, "a string cut short") : nil
    }

    private static let simpleEscapes = Set("\"\\/bfnrt".utf8)

    /// The four hex digits of a `\u` escape at `index`, as a UTF-16 unit.
    private static func codeUnit(_ bytes: [UInt8], at index: Int) -> UInt16? {
        guard index + 4 <= bytes.count else { return nil }
        var unit: UInt16 = 0
        for byte in bytes[index..<index + 4] {
            guard let digit = HexDigit.value(byte) else { return nil }
            unit = unit << 4 | UInt16(digit)
        }
        return unit
    }
}
