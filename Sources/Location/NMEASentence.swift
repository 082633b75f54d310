/// One NMEA 0183 sentence: `$GPRMC,…*hh`, checksum verified.
///
/// Parsing never traps: any bytes either give a sentence or a typed error.
public struct NMEASentence: Sendable, Equatable {
    public enum Problem: Error, Sendable, Equatable {
        case notASentence
        /// A `*` not followed by exactly two hex digits.
        case malformedChecksum
        case badChecksum(expected: UInt8, found: UInt8)
        case tooLong(Int)
    }

    /// `GP`, `GN`, `GL`, `GA`, `GB`, `BD`, `QZ`, …
    public var talker: String
    /// `RMC`, `GGA`, `GSA`, `GSV`, `VTG`, `GNS`, `GLL`, …
    public var type: String
    /// False for a sentence sent without a checksum (some proprietary ones
    /// are), which is accepted as gpsd accepts it.
    public var checksummed: Bool
    /// The comma-separated fields after the address, empty ones kept.
    public var fields: [Substring]

    /// NMEA 0183 caps a sentence at 82 characters; receivers overrun it
    /// (MediaTek's PMTKCHN runs to 203), so allow slack but not unbounded lines.
    public static let maximumLength = 256

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
        var star: Int?
        for index in 1..<end {
            if line[index] == UInt8(ascii: "*") {
                star = index
                break
            }
            checksum ^= line[index]
        }
        var bodyEnd = end
        if let star {
            guard star + 3 == end, let high = Self.hex(line[star + 1]), let low = Self.hex(line[star + 2]) else { throw .malformedChecksum }
            let found = high << 4 | low
            guard checksum == found else { throw .badChecksum(expected: checksum, found: found) }
            bodyEnd = star
            checksummed = true
        } else {
            checksummed = false
        }
        let body = Substring(String(decoding: line[1..<bodyEnd], as: UTF8.self))
        let parts = body.split(separator: ",", omittingEmptySubsequences: false)
        guard let address = parts.first, address.utf8.count >= 5,
              address.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) }) else {
            throw .notASentence
        }
        // Proprietary sentences (`$P…`) have no two-letter talker.
        if address.first == "P" {
            talker = "P"
            type = String(address.dropFirst())
        } else {
            talker = String(address.prefix(2))
            type = String(address.dropFirst(2))
        }
        fields = Array(parts.dropFirst())
    }

    private static func hex(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: byte - 0x30
        case 0x41...0x46: byte - 0x41 + 10
        case 0x61...0x66: byte - 0x61 + 10
        default: nil
        }
    }

    /// Field `index` (0-based after the address), or nil when absent or empty.
    public subscript(_ index: Int) -> Substring? {
        guard fields.indices.contains(index), !fields[index].isEmpty else { return nil }
        return fields[index]
    }

    public func double(_ index: Int) -> Double? {
        self[index].flatMap { Double($0) }.flatMap { $0.isFinite ? $0 : nil }
    }

    public func integer(_ index: Int) -> Int? { self[index].flatMap { Int($0) } }

    /// A latitude or longitude from `ddmm.mmmm`/`dddmm.mmmm` and its hemisphere
    /// field; nil when either is missing or out of range.
    public func coordinate(_ index: Int, hemisphere: Int, limit: Double) -> Double? {
        guard let raw = double(index), raw >= 0, let side = self[hemisphere] else { return nil }
        let degrees = (raw / 100).rounded(.towardZero)
        let minutes = raw - degrees * 100
        guard minutes < 60 else { return nil }
        let value = degrees + minutes / 60
        guard value <= limit else { return nil }
        switch side {
        case "N", "E": return value
        case "S", "W": return -value
        default: return nil
        }
    }

    /// Seconds since midnight UTC from `hhmmss.sss`.
    public func timeOfDay(_ index: Int) -> Double? {
        guard let field = self[index], field.utf8.count >= 6,
              let hours = Int(field.prefix(2)), let minutes = Int(field.dropFirst(2).prefix(2)),
              let seconds = Double(field.dropFirst(4)), hours < 24, minutes < 60, seconds < 61 else { return nil }
        return Double(hours * 3600 + minutes * 60) + seconds
    }
}
