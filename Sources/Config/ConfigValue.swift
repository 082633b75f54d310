import Basics
/// Parsers for the value syntaxes the config file uses. Each returns nil for
/// text it does not accept; the caller turns that into a located error.
package enum ConfigValue {
    /// `90`, `90s`, `500ms`, `5min`, `2h`, `1d`, `1.5h`; a bare number is
    /// seconds. Only decimal digits with at most one point, and the unit
    /// right after them: no sign, exponent, hex, or space.
    package static func duration(_ text: String) -> Duration? {
        let units: [(String, Double)] = [("ms", 0.001), ("min", 60), ("s", 1), ("h", 3600), ("d", 86400)]
        var number = Substring(text)
        var scale = 1.0
        for (suffix, factor) in units where text.hasSuffix(suffix) {
            number = text.dropLast(suffix.count)
            scale = factor
            break
        }
        guard isDecimal(number), let value = Double(number), value * scale < 1e9 else { return nil }
        return .milliseconds(Int64((value * scale * 1000).rounded()))
    }

    /// Digits, with at most one `.` between digits.
    private static func isDecimal(_ text: Substring) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        return (1...2).contains(parts.count) && parts.allSatisfy { !$0.isEmpty && $0.allSatisfy { $0.isASCII && $0.isNumber } }
    }

    /// `30s`, `500ms`, `5min`: how a message names a duration.
    package static func text(_ duration: Duration) -> String {
        let milliseconds = duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        if milliseconds % 1000 != 0 { return "\(milliseconds)ms" }
        let seconds = milliseconds / 1000
        if seconds >= 60, seconds % 60 == 0 { return "\(seconds / 60)min" }
        return "\(seconds)s"
    }

    /// `1048576`, `512K`, `64M`, `2G` (powers of 1024).
    package static func bytes(_ text: String) -> Int64? {
        let units: [Character: Int64] = ["K": 1 << 10, "M": 1 << 20, "G": 1 << 30]
        let digits = { (text: Substring) in !text.isEmpty && text.allSatisfy { $0.isASCII && $0.isNumber } }
        if let last = text.last, let factor = units[Character(last.uppercased())] {
            guard digits(text.dropLast()), let value = Int64(text.dropLast()), value <= Int64.max / factor else { return nil }
            return value * factor
        }
        guard digits(Substring(text)), let value = Int64(text) else { return nil }
        return value
    }

    package static func integer(_ text: String, in range: ClosedRange<Int>) -> Int? {
        let digits = text.hasPrefix("-") ? text.dropFirst() : Substring(text)
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }), let value = Int(text), range.contains(value) else { return nil }
        return value
    }

    package static func boolean(_ text: String) -> Bool? {
        switch text.lowercased() {
        case "true", "yes", "on", "1": true
        case "false", "no", "off", "0": false
        default: nil
        }
    }
}
