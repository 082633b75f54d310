/// Checks that bytes are exactly one JSON object (RFC 8259, plus the `NaN`
/// gpsd writes for unknown values) within gpsd's own limits, without building anything. libgps 3.22's parser loops
/// forever on some `DEVICES` reports (an array cut short, a stray byte
/// after an element, a key longer than it allows), so only lines that are
/// well-formed and within `JSON_ATTR_MAX`/`JSON_VAL_MAX` of gpsd's json.h
/// reach it. Nesting deeper than gpsd ever writes is refused too.
struct JSONSyntax {
    static let deepest = 16
    /// gpsd's `JSON_ATTR_MAX`: the longest key.
    static let longestKey = 31
    /// gpsd's `JSON_VAL_MAX`: the longest string value.
    static let longestString = 512

    private let bytes: [UInt8]
    private var at = 0

    static func isObject(_ bytes: [UInt8]) -> Bool {
        var parser = JSONSyntax(bytes: bytes)
        parser.skipSpace()
        guard parser.peek == UInt8(ascii: "{"), parser.value(depth: 0) else { return false }
        parser.skipSpace()
        return parser.at == bytes.count
    }

    private init(bytes: [UInt8]) { self.bytes = bytes }

    private var peek: UInt8? { at < bytes.count ? bytes[at] : nil }

    private mutating func skipSpace() {
        while let byte = peek, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { at += 1 }
    }

    private mutating func take(_ byte: UInt8) -> Bool {
        guard peek == byte else { return false }
        at += 1
        return true
    }

    private mutating func value(depth: Int) -> Bool {
        guard depth < Self.deepest else { return false }
        skipSpace()
        switch peek {
        case UInt8(ascii: "{"):
            at += 1
            skipSpace()
            if take(UInt8(ascii: "}")) { return true }
            repeat {
                skipSpace()
                guard string(longest: Self.longestKey) else { return false }
                skipSpace()
                guard take(UInt8(ascii: ":")), value(depth: depth + 1) else { return false }
                skipSpace()
            } while take(UInt8(ascii: ","))
            return take(UInt8(ascii: "}"))
        case UInt8(ascii: "["):
            at += 1
            skipSpace()
            if take(UInt8(ascii: "]")) { return true }
            repeat {
                guard value(depth: depth + 1) else { return false }
                skipSpace()
            } while take(UInt8(ascii: ","))
            return take(UInt8(ascii: "]"))
        case UInt8(ascii: "\""):
            return string(longest: Self.longestString)
        case UInt8(ascii: "t"): return literal("true")
        case UInt8(ascii: "f"): return literal("false")
        case UInt8(ascii: "n"): return literal("null")
        // gpsd writes NaN (and old versions Infinity) where a value is unknown.
        case UInt8(ascii: "N"): return literal("NaN")
        case UInt8(ascii: "I"): return literal("Infinity")
        default:
            if peek == UInt8(ascii: "-"), at + 1 < bytes.count, bytes[at + 1] == UInt8(ascii: "I") {
                at += 1
                return literal("Infinity")
            }
            return number()
        }
    }

    private mutating func literal(_ word: StaticString) -> Bool {
        let count = word.utf8CodeUnitCount
        guard at + count <= bytes.count else { return false }
        for index in 0..<count where bytes[at + index] != word.utf8Start[index] { return false }
        at += count
        return true
    }

    /// A string of at most `longest` bytes (escapes count as written).
    private mutating func string(longest: Int) -> Bool {
        guard take(UInt8(ascii: "\"")) else { return false }
        let start = at
        while let byte = peek {
            at += 1
            switch byte {
            case UInt8(ascii: "\""): return at - 1 - start <= longest
            case UInt8(ascii: "\\"):
                guard let escaped = peek else { return false }
                at += 1
                if escaped == UInt8(ascii: "u") {
                    guard at + 4 <= bytes.count, bytes[at..<at + 4].allSatisfy(Self.isHex) else { return false }
                    at += 4
                } else if !Array(#""\/bfnrt"#.utf8).contains(escaped) {
                    return false
                }
            case 0..<0x20: return false
            default: continue
            }
        }
        return false
    }

    private mutating func number() -> Bool {
        _ = take(UInt8(ascii: "-"))
        guard digits() else { return false }
        if take(UInt8(ascii: ".")) { guard digits() else { return false } }
        if take(UInt8(ascii: "e")) || take(UInt8(ascii: "E")) {
            _ = take(UInt8(ascii: "+")) || take(UInt8(ascii: "-"))
            guard digits() else { return false }
        }
        return true
    }

    private mutating func digits() -> Bool {
        let start = at
        while let byte = peek, byte >= 0x30, byte <= 0x39 { at += 1 }
        return at > start
    }

    private static func isHex(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x46).contains(byte) || (0x61...0x66).contains(byte)
    }
}
