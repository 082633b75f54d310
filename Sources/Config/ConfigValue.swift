import Basics
/// Parsers for the value syntaxes the config file uses. Each returns nil for
/// text it does not accept; the caller turns that into a located error.
package enum ConfigValue {
    /// `90`, `90s`, `500ms`, `5min`, `2h`, `1d`; a bare number is seconds.
    package static func duration(_ text: String) -> Duration? {
        let units: [(String, Double)] = [("ms", 0.001), ("min", 60), ("s", 1), ("m", 60), ("h", 3600), ("d", 86400)]
        var number = text
        var scale = 1.0
        for (suffix, factor) in units where text.hasSuffix(suffix) {
            number = String(text.dropLast(suffix.count)).trimmingWhitespace()
            scale = factor
            break
        }
        guard let value = Double(number), value.isFinite, value >= 0, value * scale < 1e9 else { return nil }
        return .milliseconds(Int64((value * scale * 1000).rounded()))
    }

    /// `1048576`, `512K`, `64M`, `2G` (powers of 1024).
    package static func bytes(_ text: String) -> Int64? {
        let units: [Character: Int64] = ["K": 1 << 10, "M": 1 << 20, "G": 1 << 30]
        if let last = text.last, let factor = units[Character(last.uppercased())] {
            guard let value = Int64(text.dropLast()), value >= 0, value <= Int64.max / factor else { return nil }
            return value * factor
        }
        guard let value = Int64(text), value >= 0 else { return nil }
        return value
    }

    package static func integer(_ text: String, in range: ClosedRange<Int>) -> Int? {
        guard let value = Int(text), range.contains(value) else { return nil }
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
