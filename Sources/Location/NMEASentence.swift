internal import Basics

/// One NMEA 0183 sentence: `$GPRMC,…*hh`, checksum verified.
///
/// Parsing never traps: any bytes either give a sentence or a typed error.
/// A sentence keeps the line's bytes and where each field starts; fields are
/// read from the bytes on demand, so parsing allocates only that table.
public struct NMEASentence: Sendable, Equatable {
    public enum Problem: Error, Sendable, Equatable {
        case notASentence
        /// A `*` not followed by exactly two hex digits.
        case malformedChecksum
        case badChecksum(expected: UInt8, found: UInt8)
        case tooLong(Int)
    }

    /// NMEA 0183 caps a sentence at 82 characters; receivers overrun it
    /// (MediaTek's PMTKCHN runs to 203), so allow slack but not unbounded lines.
    public static let maximumLength = 256

    private let line: [UInt8]
    /// Offsets of each field's first byte, then one past the last field's end
    /// (+1, as if a comma followed): field i spans starts[i] ..< starts[i+1]-1.
    /// `UInt16`: a line of `maximumLength` bytes has offsets up to length + 1.
    private let starts: [UInt16]
    /// Where the address ends (its comma, or the body's end).
    private let addressEnd: Int
    /// The sentence type's three letters packed big-endian (`RMC` → 0x524D43),
    /// for switching without building strings.
    let typeCode: UInt32
    /// False for a sentence sent without a checksum (some proprietary ones
    /// are), which is accepted as gpsd accepts it.
    public let checksummed: Bool

    public init(_ line: Substring) throws(Problem) {
        var line = line
        try self.init(utf8: line.withUTF8 { Array($0) })
    }

    /// Parses raw bytes, as read from a receiver.
    public init(utf8 line: [UInt8]) throws(Problem) {
        var end = line.count
        while end > 0, line[end - 1] == 0x0D || line[end - 1] == 0x0A || line[end - 1] == 0x20 { end -= 1 }
        guard end <= Self.maximumLength else { throw .tooLong(end) }
        guard end > 0, line[0] == UInt8(ascii: "$") || line[0] == UInt8(ascii: "!") else { throw .notASentence }
        var checksum: UInt8 = 0
        var bodyEnd = end
        var starts: [UInt16] = []
        starts.reserveCapacity(24)
        var addressEnd = -1
        for index in 1..<end {
            let byte = line[index]
            if byte == UInt8(ascii: "*") {
                bodyEnd = index
                break
            }
            checksum ^= byte
            if byte == UInt8(ascii: ",") {
                if addressEnd < 0 { addressEnd = index }
                starts.append(UInt16(index + 1))
            }
        }
        if bodyEnd < end {
            guard bodyEnd + 3 == end, let high = HexDigit.value(line[bodyEnd + 1]), let low = HexDigit.value(line[bodyEnd + 2]) else { throw .malformedChecksum }
            let found = high << 4 | low
            guard checksum == found else { throw .badChecksum(expected: checksum, found: found) }
            checksummed = true
        } else {
            checksummed = false
        }
        if addressEnd < 0 { addressEnd = bodyEnd }
        starts.append(UInt16(bodyEnd + 1))
        guard addressEnd - 1 >= 5 else { throw .notASentence }
        for index in 1..<addressEnd {
            switch line[index] {
            case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: continue
            default: throw .notASentence
            }
        }
        // Proprietary sentences (`$P…`) have no two-letter talker.
        let typeStart = line[1] == UInt8(ascii: "P") ? 2 : 3
        var code: UInt32 = 0
        for index in typeStart..<min(typeStart + 3, addressEnd) { code = code << 8 | UInt32(line[index]) }
        typeCode = addressEnd - typeStart == 3 ? code : 0
        self.line = line
        self.starts = starts
        self.addressEnd = addressEnd
    }

    /// `GP`, `GN`, `GL`, `GA`, `GB`, `BD`, `QZ`, …; `P` for a proprietary sentence.
    public var talker: String {
        line[1] == UInt8(ascii: "P") ? "P" : String(decoding: line[1..<3], as: UTF8.self)
    }

    /// `RMC`, `GGA`, `GSA`, `GSV`, `VTG`, `GNS`, `GLL`, …
    public var type: String {
        String(decoding: line[(line[1] == UInt8(ascii: "P") ? 2 : 3)..<addressEnd], as: UTF8.self)
    }

    /// The comma-separated fields after the address, empty ones kept.
    public var fields: [Substring] { (0..<fieldCount).map { self[$0] ?? "" } }

    public var fieldCount: Int { starts.count - 1 }

    public static func == (lhs: NMEASentence, rhs: NMEASentence) -> Bool { lhs.line == rhs.line }

    /// The byte range of field `index`, or nil when absent or empty.
    @inline(__always)
    private func span(_ index: Int) -> Range<Int>? {
        guard index >= 0, index + 1 < starts.count else { return nil }
        let start = Int(starts[index]), end = Int(starts[index + 1]) - 1
        return start < end ? start..<end : nil
    }

    /// Field `index` (0-based after the address), or nil when absent or empty.
    public subscript(_ index: Int) -> Substring? {
        span(index).map { Substring(String(decoding: line[$0], as: UTF8.self)) }
    }

    /// Whether field `index` is exactly one byte, `ascii`.
    func field(_ index: Int, is ascii: Unicode.Scalar) -> Bool {
        guard let range = span(index) else { return false }
        return range.count == 1 && line[range.lowerBound] == UInt8(ascii: ascii)
    }

    func isEmpty(_ index: Int) -> Bool { span(index) == nil }

    /// A decimal field: optional sign, digits, optional fraction. Computed as
    /// digits ÷ 10ⁿ, exact operands and one correctly rounded division, so it
    /// equals what `Double(String)` gives for the up to 15 digits NMEA uses.
    public func double(_ index: Int) -> Double? {
        guard let range = span(index) else { return nil }
        var position = range.lowerBound
        var negative = false
        if line[position] == UInt8(ascii: "-") || line[position] == UInt8(ascii: "+") {
            negative = line[position] == UInt8(ascii: "-")
            position += 1
        }
        var mantissa: UInt64 = 0
        var digits = 0
        var decimals = 0
        var seenPoint = false
        while position < range.upperBound {
            let byte = line[position]
            if byte == UInt8(ascii: ".") {
                guard !seenPoint else { return nil }
                seenPoint = true
            } else if byte >= 0x30, byte <= 0x39 {
                guard digits < 15 else { return slowDouble(range) }
                mantissa = mantissa * 10 + UInt64(byte - 0x30)
                digits += 1
                if seenPoint { decimals += 1 }
            } else {
                return slowDouble(range)
            }
            position += 1
        }
        guard digits > 0 else { return nil }
        let value = Double(mantissa) / Self.powersOfTen[decimals]
        return negative ? -value : value
    }

    private static let powersOfTen: [Double] = (0...15).map { exponent in (0..<exponent).reduce(1.0) { value, _ in value * 10 } }

    /// Exponents, long mantissas and the like: the standard library's parser.
    private func slowDouble(_ range: Range<Int>) -> Double? {
        Double(String(decoding: line[range], as: UTF8.self)).flatMap { $0.isFinite ? $0 : nil }
    }

    public func integer(_ index: Int) -> Int? {
        guard let range = span(index), range.count <= 18 else { return nil }
        var value = 0
        var position = range.lowerBound
        let negative = line[position] == UInt8(ascii: "-")
        if negative || line[position] == UInt8(ascii: "+") { position += 1 }
        guard position < range.upperBound else { return nil }
        while position < range.upperBound {
            let digit = Int(line[position]) - 0x30
            guard digit >= 0, digit <= 9 else { return nil }
            value = value * 10 + digit
            position += 1
        }
        return negative ? -value : value
    }

    /// A latitude or longitude from `ddmm.mmmm`/`dddmm.mmmm` and its hemisphere
    /// field; nil when either is missing or out of range.
    public func coordinate(_ index: Int, hemisphere: Int, limit: Double) -> Double? {
        guard let raw = double(index), raw >= 0, let side = span(hemisphere), side.count == 1 else { return nil }
        let degrees = (raw / 100).rounded(.towardZero)
        let minutes = raw - degrees * 100
        guard minutes < 60 else { return nil }
        let value = degrees + minutes / 60
        guard value <= limit else { return nil }
        switch line[side.lowerBound] {
        case UInt8(ascii: "N"), UInt8(ascii: "E"): return value
        case UInt8(ascii: "S"), UInt8(ascii: "W"): return -value
        default: return nil
        }
    }

    /// Seconds since midnight UTC from `hhmmss.sss`.
    public func timeOfDay(_ index: Int) -> Double? {
        guard let range = span(index), range.count >= 6 else { return nil }
        func pair(_ offset: Int) -> Int? {
            let high = Int(line[range.lowerBound + offset]) - 0x30, low = Int(line[range.lowerBound + offset + 1]) - 0x30
            return (0...9).contains(high) && (0...9).contains(low) ? high * 10 + low : nil
        }
        guard let hours = pair(0), let minutes = pair(2), hours < 24, minutes < 60,
              let seconds = secondsField(range.lowerBound + 4, range.upperBound), seconds < 61 else { return nil }
        return Double(hours * 3600 + minutes * 60) + seconds
    }

    /// `ss[.sss]` inside a time field.
    private func secondsField(_ start: Int, _ end: Int) -> Double? {
        var mantissa: UInt64 = 0, decimals = 0, digits = 0, seenPoint = false
        for position in start..<end {
            let byte = line[position]
            if byte == UInt8(ascii: "."), !seenPoint {
                seenPoint = true
            } else if byte >= 0x30, byte <= 0x39, digits < 15 {
                mantissa = mantissa * 10 + UInt64(byte - 0x30)
                digits += 1
                if seenPoint { decimals += 1 }
            } else {
                return nil
            }
        }
        return digits > 0 ? Double(mantissa) / Self.powersOfTen[decimals] : nil
    }
}
