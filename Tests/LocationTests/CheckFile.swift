import Telemetry
import Basics
import Foundation
import Location

/// gpsd's expected output for a receiver log (`NAME.log.chk`): the last TPV of
/// each epoch, which is what gpsd settled on.
struct CheckFile {
    struct Epoch {
        var time: Double
        var label: String
        var tpv: [String: Any]
    }

    var epochs: [Epoch] = []

    /// GPS week numbers roll over every 1024 weeks. gpsd 3.22 (Debian 12)
    /// takes dates older than its own release for rolled-over ones and moves
    /// them 1024 weeks ahead; the logs, recorded 2008–2019, come back from it
    /// in 2028–2039. A difference of exactly this much is that, nothing else.
    static let weekRollover = 1024.0 * 7 * 86400

    init(_ name: String) throws {
        var index: [Double: Int] = [:]
        for line in try NMEASentenceTests.log(name + ".chk").split(whereSeparator: \.isNewline) where line.contains(#""class":"TPV""#) {
            guard let tpv = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  let label = tpv["time"] as? String, let time = CivilTime.parseISO8601(label) else { continue }
            if let existing = index[time] {
                epochs[existing].tpv = tpv
            } else {
                index[time] = epochs.count
                epochs.append(Epoch(time: time, label: label, tpv: tpv))
            }
        }
    }

    /// Every epoch whose fix is missing or differs from gpsd's in one of `keys`
    /// by more than `tolerance`.
    func mismatches(_ fixes: [Fix], keys: [String], tolerance: Double, allowRollover: Bool = false) -> [String] {
        // Keyed by whole milliseconds, gpsd's resolution.
        func key(_ time: Double) -> Int { Int((time * 1000).rounded()) }
        var byTime: [Int: Fix] = [:]
        for fix in fixes {
            guard let time = fix.time else { continue }
            byTime[key(time)] = fix
            if allowRollover { byTime[key(time - Self.weekRollover)] = fix }
        }
        return epochs.compactMap { epoch in
            guard let fix = byTime[key(epoch.time)] else { return "\(epoch.label): no fix" }
            let problems = keys.compactMap { key -> String? in
                let ours = Self.value(fix, key)
                let theirs = (epoch.tpv[key] as? NSNumber)?.doubleValue
                if ours == nil, theirs == nil { return nil }
                if let ours, let theirs, abs(ours - theirs) <= tolerance { return nil }
                return "\(key) \(ours.map { "\($0)" } ?? "-") vs \(theirs.map { "\($0)" } ?? "-")"
            }
            return problems.isEmpty ? nil : "\(epoch.label): " + problems.joined(separator: ", ")
        }
    }

    private static func value(_ fix: Fix, _ key: String) -> Double? {
        switch key {
        case "mode": Double(fix.mode)
        case "lat": fix.lat
        case "lon": fix.lon
        case "altHAE": fix.altHAE
        case "altMSL": fix.altMSL
        case "speed": fix.speed
        case "track": fix.track
        case "status": fix.status.map(Double.init)
        default: nil
        }
    }
}
