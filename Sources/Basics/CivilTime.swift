/// Conversions between seconds since 1970 (UTC) and civil dates, without
/// Foundation's calendars: gpsd's ISO 8601 times are parsed and printed on
/// every fix, so this sits on the hot path.
public enum CivilTime {
    /// Days from 1970-01-01 to a civil date (proleptic Gregorian).
    public static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int? {
        guard (1...12).contains(month), (1...31).contains(day), (1970...2200).contains(year) else { return nil }
        let y = month <= 2 ? year - 1 : year
        let era = y / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The civil date of a day count from 1970-01-01.
    static func date(days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// `2015-10-10T09:12:32.000Z`, millisecond precision, as gpsd prints it.
    public static func iso8601(_ seconds: Double) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(24)
        appendISO8601(seconds, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends the same text as `iso8601` to a byte buffer (for bulk JSON).
    /// Times outside years 1–9999 (or not finite) print as the nearest end of it.
    public static func appendISO8601(_ seconds: Double, to bytes: inout [UInt8]) {
        let milliseconds = Int((Self.printable(seconds) * 1000).rounded())
        let (days, inDay) = milliseconds.quotientAndRemainder(dividingBy: 86_400_000)
        let (dayNumber, ms) = inDay < 0 ? (days - 1, inDay + 86_400_000) : (days, inDay)
        let (year, month, day) = date(days: dayNumber)
        func digits(_ value: Int, _ width: Int, then separator: UInt8) {
            DecimalText.append(value, width: width, to: &bytes)
            bytes.append(separator)
        }
        digits(year, 4, then: UInt8(ascii: "-"))
        digits(month, 2, then: UInt8(ascii: "-"))
        digits(day, 2, then: UInt8(ascii: "T"))
        digits(ms / 3_600_000, 2, then: UInt8(ascii: ":"))
        digits(ms / 60000 % 60, 2, then: UInt8(ascii: ":"))
        digits(ms / 1000 % 60, 2, then: UInt8(ascii: "."))
        digits(ms % 1000, 3, then: UInt8(ascii: "Z"))
    }

    /// Clamps to what `iso8601` can print: 0001-01-01 to 9999-12-31.
    static func printable(_ seconds: Double) -> Double {
        guard seconds.isFinite else { return 0 }
        return min(max(seconds, -62_135_596_800), 253_402_300_799.999)
    }

    /// Parses `YYYY-MM-DDTHH:MM:SS[.fff]Z`; nil for anything else.
    public static func parseISO8601(_ text: some StringProtocol) -> Double? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 20, bytes.last == UInt8(ascii: "Z"), bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
              bytes[10] == UInt8(ascii: "T"), bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":") else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for index in range {
                let digit = Int(bytes[index]) - 48
                guard (0...9).contains(digit) else { return nil }
                value = value * 10 + digit
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
              let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
              hour < 24, minute < 60, second < 61,
              let days = daysSinceEpoch(year: year, month: month, day: day) else { return nil }
        var fraction = 0.0
        let end = bytes.count - 1
        if end > 19 {
            guard bytes[19] == UInt8(ascii: "."), end > 20, end - 20 <= 9, let digits = number(20..<end) else { return nil }
            var scale = 1.0
            for _ in 20..<end { scale *= 10 }
            fraction = Double(digits) / scale
        } else if end != 19 {
            return nil
        }
        return Double(days * 86400 + hour * 3600 + minute * 60 + second) + fraction
    }
}
