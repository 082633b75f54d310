import Basics

/// A receiver log moved in time so that its last fix is now: each
/// sentence's date and time of day shifted by the same whole seconds, its
/// checksum written again. The drive then shows today's dates, and gpsd
/// (3.22) does not take an old log's dates for a GPS week rollover and
/// move them 1024 weeks on, as it does with this log's 2015.
///
/// Times are in RMC, GGA, GLL and ZDA; a sentence without a date (GGA,
/// GLL) takes the last date seen (the first, before any). Lines that are
/// not such sentences pass unchanged.
struct RecentLog {
    private(set) var text: String

    init(_ original: String, endingAt now: Double) {
        // Split on the bytes: a CR LF pair is one Character, and splitting the
        // String on "\n" would leave a CR LF log whole.
        let lines = original.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        let sentences = lines.map(Sentence.init)
        // Each sentence's own time, or nil, in order; those before the
        // first date take that one.
        var date = sentences.lazy.compactMap { $0?.date }.first
        let times = sentences.map { sentence -> Double? in
            guard let sentence else { return nil }
            date = sentence.date ?? date
            return sentence.time.flatMap { time in date.flatMap { Self.seconds(date: $0, time: time) } }
        }
        guard let last = times.compactMap({ $0 }).max() else {
            text = original
            return
        }
        let shift = (now - last).rounded(.down)
        text = zip(lines, zip(sentences, times)).map { line, parsed in
            guard var sentence = parsed.0, let time = parsed.1 else { return line }
            return sentence.moved(to: time + shift)
        }.joined(separator: "\n")
    }

    /// `ddmmyy` or `dd,mm,yyyy` (as `ddmmyyyy`) and `hhmmss.sss` to seconds since 1970.
    private static func seconds(date: String, time: String) -> Double? {
        let d = Array(date.utf8), t = Array(time.utf8)
        guard d.count == 6 || d.count == 8, t.count >= 6 else { return nil }
        let year = d.count == 8 ? String(date.suffix(4)) : "20" + date.suffix(2)
        let fraction = t.count > 7 ? "." + time.dropFirst(7) : ""
        let iso = "\(year)-\(date.dropFirst(2).prefix(2))-\(date.prefix(2))T\(time.prefix(2)):\(time.dropFirst(2).prefix(2)):\(time.dropFirst(4).prefix(2))\(fraction)Z"
        return CivilTime.parseISO8601(iso)
    }

    /// One NMEA sentence's fields, where they hold a time or a date.
    private struct Sentence {
        var fields: [String]
        let timeField: Int
        let kind: Kind
        /// What follows the checksum (a CR), kept as it was.
        let ending: Substring

        enum Kind { case rmc, gga, gll, zda }

        init?(_ line: String) {
            guard line.hasPrefix("$"), let star = line.lastIndex(of: "*") else { return nil }
            fields = line[line.index(after: line.startIndex)..<star].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            ending = line[star...].dropFirst(3)
            guard let type = fields.first, type.count == 5 else { return nil }
            switch type.suffix(3) {
            case "RMC" where fields.count > 9: (kind, timeField) = (.rmc, 1)
            case "GGA" where fields.count > 1: (kind, timeField) = (.gga, 1)
            case "GLL" where fields.count > 5: (kind, timeField) = (.gll, 5)
            case "ZDA" where fields.count > 4: (kind, timeField) = (.zda, 1)
            default: return nil
            }
        }

        var time: String? { fields[timeField].count >= 6 ? fields[timeField] : nil }

        var date: String? {
            switch kind {
            case .rmc: fields[9].count == 6 ? fields[9] : nil
            case .zda: fields[2].count == 2 && fields[3].count == 2 && fields[4].count == 4 ? fields[2] + fields[3] + fields[4] : nil
            case .gga, .gll: nil
            }
        }

        /// The sentence with its time (and date) set to `seconds`, keeping
        /// the original's number of decimals.
        mutating func moved(to seconds: Double) -> String {
            let iso = Array(CivilTime.iso8601(seconds).utf8)   // YYYY-MM-DDTHH:MM:SS.mmmZ
            func text(_ range: Range<Int>) -> String { String(decoding: iso[range], as: UTF8.self) }
            let decimals = fields[timeField].split(separator: ".").dropFirst().first?.count ?? 0
            fields[timeField] = text(11..<13) + text(14..<16) + text(17..<19) + (decimals > 0 ? "." + text(20..<(20 + min(decimals, 3))) : "")
            switch kind {
            case .rmc: fields[9] = text(8..<10) + text(5..<7) + text(2..<4)
            case .zda: (fields[2], fields[3], fields[4]) = (text(8..<10), text(5..<7), text(0..<4))
            case .gga, .gll: break
            }
            let body = fields.joined(separator: ",")
            let checksum = body.utf8.reduce(UInt8(0)) { $0 ^ $1 }
            let hex = Array("0123456789ABCDEF".utf8)
            return "$" + body + "*" + String(decoding: [hex[Int(checksum >> 4)], hex[Int(checksum & 0xF)]], as: UTF8.self) + ending
        }
    }
}
