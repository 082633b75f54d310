import Capture
import Location
import Telemetry

/// Location lines from a capture back into fixes, one per epoch, with the
/// parsers and assemblers the location reader uses. An epoch closes when
/// the next epoch begins, or where the capture says the reader closed it
/// without a line; a capture that does not say (format 1) closes it after
/// `settle` seconds without a line, as the reader's settle alarm was set.
struct ReplayedLocation {
    /// Nil when the capture records where epochs closed.
    let settle: Double?
    private var gpsd = GPSDFixAssembler()
    private var nmea = NMEAFixAssembler()
    private let decoder = GPSDDecoder()
    /// When the last line came, and whether it was gpsd's.
    private var last: (time: Double, gpsd: Bool)?

    init(settle: Double?) { self.settle = settle }

    /// The fixes of `line`, heard at `time`.
    mutating func add(_ line: LocationLine, at time: Double) -> [Fix] {
        last = (time, line.speaks == .gpsd)
        switch line.speaks {
        case .gpsd:
            guard let report = try? decoder.decode(line.bytes) else { return [] }
            switch report {
            case .tpv(let fix, _): return gpsd.add(fix)
            case .sky(let used, let seen): gpsd.addSky(used: used, seen: seen)
            case .device(_, false): return gpsd.finish().map { [$0] } ?? []
            default: break
            }
            return []
        case .nmea:
            guard let sentence = try? NMEASentence(utf8: line.bytes) else { return [] }
            return nmea.add(sentence).map { [$0] } ?? []
        }
    }

    /// When the open epoch closes for want of lines; nil when none is open.
    var settleDeadline: Double? {
        guard let settle, let last, last.gpsd ? gpsd.isOpen : nmea.isOpen else { return nil }
        return last.time + settle
    }

    /// Closes the open epoch where the capture says the reader did: the fix,
    /// timed `afterLastLine` seconds after the last line.
    mutating func close(afterLastLine: Double) -> (Fix, at: Double)? {
        guard let time = last?.time, let fix = finish() else { return nil }
        return (fix, time + afterLastLine)
    }

    /// Closes the open epoch.
    mutating func finish() -> Fix? {
        guard let last else { return nil }
        return last.gpsd ? gpsd.finish() : nmea.finish()
    }
}
