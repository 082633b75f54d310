import Foundation
@testable import Location
import Testing

/// Fixes from the NMEA reader against gpsd's own output (`.chk`) for the
/// same receiver logs: gpsd's last TPV of each epoch is what it settled on.
struct NMEAFixAssemblerTests {
    struct Comparison {
        var epochs = 0
        var mismatches: [String] = []
    }

    static func compare(_ name: String) throws -> Comparison {
        let log = try NMEASentenceTests.log(name)
        let check = try NMEASentenceTests.log(name + ".chk")
        var assembler = NMEAFixAssembler()
        var fixes: [Fix] = []
        for line in log.split(whereSeparator: \.isNewline) where line.hasPrefix("$") {
            if let fix = assembler.add(line: line) { fixes.append(fix) }
        }
        if let last = assembler.finish() { fixes.append(last) }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        var lastPerTime: [String: [String: Any]] = [:]
        var order: [String] = []
        for line in check.split(whereSeparator: \.isNewline) where line.contains(#""class":"TPV""#) {
            guard let tpv = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], let time = tpv["time"] as? String else { continue }
            if lastPerTime[time] == nil { order.append(time) }
            lastPerTime[time] = tpv
        }
        var result = Comparison()
        for time in order {
            guard let tpv = lastPerTime[time], let date = formatter.date(from: time) else { continue }
            result.epochs += 1
            guard let fix = fixes.first(where: { abs(($0.time ?? -1) - date.timeIntervalSince1970) < 0.0005 }) else {
                result.mismatches.append("\(time): no fix")
                continue
            }
            var problems: [String] = []
            if let mode = tpv["mode"] as? Int, mode != fix.mode { problems.append("mode \(fix.mode) vs \(mode)") }
            for (key, ours, tolerance) in [("lat", fix.lat, 5.1e-10), ("lon", fix.lon, 5.1e-10)] {
                let theirs = tpv[key] as? Double
                if (theirs == nil) != (ours == nil) || abs((theirs ?? 0) - (ours ?? 0)) > tolerance { problems.append("\(key) \(String(describing: ours)) vs \(String(describing: theirs))") }
            }
            if !problems.isEmpty { result.mismatches.append("\(time): " + problems.joined(separator: ", ")) }
        }
        return result
    }

    /// Every NMEA-only log. Left out, with reason: `ublox-neo-m8l` and
    /// `ublox-neo-m8n`, whose gpsd output comes from UBX binary messages the
    /// NMEA reader does not speak; `tcp-torture`, which holds gpsfake's delay
    /// cookies (`|`) for testing gpsd's TCP packetizer, not NMEA.
    @Test(arguments: NMEASentenceTests.receiverLogs + ["nmea-fuzzy-cases.log"])
    func everyEpochMatchesGpsdOnTimeModeLatAndLon(_ name: String) throws {
        let result = try Self.compare(name)
        #expect(result.epochs > 0)
        #expect(result.mismatches.isEmpty, "\(result.mismatches.count) of \(result.epochs): \(result.mismatches.prefix(3))")
    }

    @Test func civilDatesCountFromTheEpoch() {
        #expect(NMEAFixAssembler.daysSinceEpoch(year: 1970, month: 1, day: 1) == 0)
        #expect(NMEAFixAssembler.daysSinceEpoch(year: 2000, month: 3, day: 1) == 11_017)
        #expect(NMEAFixAssembler.daysSinceEpoch(year: 2015, month: 10, day: 10) == 16_718)
        #expect(NMEAFixAssembler.daysSinceEpoch(year: 2015, month: 13, day: 10) == nil)
    }
}
