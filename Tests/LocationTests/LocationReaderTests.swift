import Basics
import Foundation
import Location
import PeerHarness
import Telemetry
import Testing

/// The reader against real gpsd: gpsfake replaying the receiver logs, and a
/// standalone gpsd on a pseudo-terminal for faults.
@Suite(.serialized)
struct LocationReaderTests {
    static let allLogs = NMEASentenceTests.receiverLogs + ["ublox-neo-m8l.log", "ublox-neo-m8n.log", "nmea-fuzzy-cases.log", "tcp-torture.log"]

    /// Fixes from one gpsfake run, until gpsfake ends and gpsd goes away.
    static func replay(_ name: String, directory: TemporaryDirectory) async throws -> [Fix] {
        let url = try #require(Bundle.module.url(forResource: name, withExtension: nil, subdirectory: "gpsd"))
        let fake = try GPSFake(log: url.path, directory: directory)
        defer { fake.stop() }
        let reader = LocationReader(source: .gpsd(host: "127.0.0.1", port: fake.port), options: LocationOptions(noDataTimeout: .seconds(10)), clock: ContinuousClock())
        let reading = Task { await reader.run() }
        let fixes: [Fix]
        do {
            fixes = try await withDeadline(.seconds(60), "\(name) replayed through gpsd") {
                var fixes: [Fix] = []
                var connected = false
                for await event in reader.events {
                    switch event {
                    case .fix(let fix): fixes.append(fix)
                    case .state(.unreachable) where connected: return fixes
                    case .state(.noFix), .state(.fix):
                        // gpsd has the pseudo-terminal open (it lists or announces
                        // the device): let the log play. Released any earlier, on
                        // the watch's answer alone, lines written before gpsd opens
                        // the terminal are flushed, and a short log gives no fixes.
                        if !connected { fake.release() }
                        connected = true
                    case .state: break
                    }
                }
                return fixes
            }
        } catch PeerError.timedOut(let what) {
            throw PeerError.timedOut("\(what); gpsfake printed: \(fake.process.output.suffix(800))")
        }
        reading.cancel()
        await reading.value
        return fixes
    }

    /// Every log in the set, replayed through gpsd: the fixes equal gpsd's
    /// expected TPVs on time, mode, lat, lon, altHAE, altMSL, speed and track.
    /// Both sides are gpsd's own printed numbers, so they must be equal.
    ///
    /// One stated exception: the `.chk` of `ublox-neo-m8l` came from a newer
    /// gpsd that decodes the receiver's 10 Hz UBX high-rate navigation
    /// (dead-reckoning, status 6) messages. Debian 12's gpsd 3.22 does not:
    /// it reports the whole-second epochs only, from the navigation solution.
    /// There, every epoch gpsd settled on a non-dead-reckoning TPV (17 of 18
    /// whole seconds) must match.
    @Test func everyLogReplayedThroughGpsdGivesItsExpectedFixes() async throws {
        let directory = try TemporaryDirectory("waymark-gpsfake")
        defer { directory.remove() }
        // One at a time: ten gpsfake, gpsd and Python processes at once on two
        // cores have now and then left a log with no fixes at all.
        var results: [String: [Fix]] = [:]
        for name in Self.allLogs { results[name] = try await Self.replay(name, directory: directory) }
        for name in Self.allLogs {
            var check = try CheckFile(name)
            let fixes = try #require(results[name])
            if name == "ublox-neo-m8l.log" {
                check.epochs.removeAll { ($0.tpv["status"] as? Int) == 6 }
                #expect(check.epochs.count == 17)
            }
            let mismatches = check.mismatches(
                fixes, keys: ["mode", "lat", "lon", "altHAE", "altMSL", "speed", "track"], tolerance: 1e-9, allowRollover: true)
            #expect(!check.epochs.isEmpty)
            let received = "\(fixes.count) fixes received, first at \(fixes.first?.time.map(CivilTime.iso8601) ?? "-")"
            #expect(mismatches.isEmpty, "\(name): \(mismatches.count) of \(check.epochs.count): \(mismatches.prefix(3)); \(received)")
        }
    }
}
