import Basics
@testable import Location
import Telemetry
import Testing

/// Fixes from the NMEA reader against gpsd's own output (`.chk`) for the
/// same receiver logs: gpsd's last TPV of each epoch is what it settled on.
struct NMEAFixAssemblerTests {
    static func fixes(_ name: String) throws -> [Fix] {
        var assembler = NMEAFixAssembler()
        var fixes: [Fix] = []
        for line in try NMEASentenceTests.log(name).split(whereSeparator: \.isNewline) where line.hasPrefix("$") {
            if let fix = assembler.add(line: line) { fixes.append(fix) }
        }
        if let last = assembler.finish() { fixes.append(last) }
        return fixes
    }

    /// Every NMEA-only log. Left out, with reason: `ublox-neo-m8l` and
    /// `ublox-neo-m8n`, whose gpsd output comes from UBX binary messages the
    /// NMEA reader does not speak; `tcp-torture`, which holds gpsfake's delay
    /// cookies (`|`) for testing gpsd's TCP packetizer, not NMEA.
    @Test(arguments: NMEASentenceTests.receiverLogs + ["nmea-fuzzy-cases.log"])
    func everyEpochMatchesGpsdOnTimeModeLatAndLon(_ name: String) throws {
        let check = try CheckFile(name)
        // gpsd prints nine decimals of a degree: equal within half a unit of the last.
        let mismatches = check.mismatches(try Self.fixes(name), keys: ["mode", "lat", "lon"], tolerance: 5.1e-10)
        #expect(!check.epochs.isEmpty)
        #expect(mismatches.isEmpty, "\(mismatches.count) of \(check.epochs.count): \(mismatches.prefix(3))")
    }

    @Test func civilDatesCountFromTheEpoch() {
        #expect(CivilTime.daysSinceEpoch(year: 1970, month: 1, day: 1) == 0)
        #expect(CivilTime.daysSinceEpoch(year: 2000, month: 3, day: 1) == 11_017)
        #expect(CivilTime.daysSinceEpoch(year: 2015, month: 10, day: 10) == 16_718)
        #expect(CivilTime.daysSinceEpoch(year: 2015, month: 13, day: 10) == nil)
    }
}
