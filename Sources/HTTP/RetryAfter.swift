internal import Basics

/// The `Retry-After` header (RFC 9110 §10.2.3): delay-seconds or an
/// HTTP-date. Proxies and captive portals send anything (`nan`, `inf`,
/// `1e20`, `-5`), so every value is checked before it becomes a duration.
public enum RetryAfter {
    /// The longest wait taken from a server; anything beyond is treated as absent.
    public static let longest = 86_400.0

    public enum Parsed: Sendable, Equatable {
        case delay(Duration)
        /// Present but not a usable delay: the caller's own backoff applies.
        case unusable(String)
    }

    /// Parses the header's value; `now` (seconds since 1970) dates an HTTP-date.
    public static func parse(_ text: String, now: Double) -> Parsed {
        let value = text.trimmingSpaces
        if let seconds = Double(value) {
            guard seconds.isFinite, seconds >= 0, seconds <= longest, let delay = Duration.seconds(clamping: seconds, to: 0...longest) else {
                return .unusable(String(value.prefix(32)))
            }
            return .delay(delay)
        }
        guard let date = httpDate(value) else { return .unusable(String(value.prefix(32))) }
        return .delay(Duration.seconds(clamping: date - now, to: 0...longest) ?? .zero)
    }

    /// IMF-fixdate, `Sun, 06 Nov 1994 08:49:37 GMT`, the form RFC 9110 requires senders to use.
    static func httpDate(_ text: Substring) -> Double? {
        let parts = text.split(separator: " ")
        guard parts.count == 6, parts[0].count == 4, parts[0].hasSuffix(","), parts[5] == "GMT",
              let day = Int(parts[1]), parts[1].count == 2,
              let month = months.firstIndex(of: String(parts[2])), let year = Int(parts[3]), parts[3].count == 4 else { return nil }
        let clock = parts[4].split(separator: ":", omittingEmptySubsequences: false)
        guard clock.count == 3, clock.allSatisfy({ $0.count == 2 }), let hour = Int(clock[0]), let minute = Int(clock[1]),
              let second = Int(clock[2]), hour < 24, minute < 60, second < 61,
              let days = CivilTime.daysSinceEpoch(year: year, month: month + 1, day: day) else { return nil }
        return Double(days * 86_400 + hour * 3600 + minute * 60 + second)
    }

    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
}

extension String {
    fileprivate var trimmingSpaces: Substring {
        let trimmed = drop { $0 == " " || $0 == "\t" }
        return trimmed.dropLast(trimmed.reversed().prefix { $0 == " " || $0 == "\t" }.count)
    }
}
