import Basics
import BlueZ
import Config
@testable import Daemon
import Foundation
import Location
import Pairings
import PeerHarness
import Recording
import Run
import Storage
import Store
import Telemetry
import Testing
import Upload
import Vocabulary

/// A Pi has no RTC: it boots in 1970 or at the last saved time, and NTP or
/// GPS then moves the wall clock by years. Trips, presence and gaps are
/// timed on the boot clock, and samples say how far their time is trusted.
struct ClockJumpTests {
    static let year = 365 * 86_400.0
    static let now2026 = 1_796_000_000.0

    struct Car {
        let work: TemporaryDirectory
        let store: GatewayStore
        let clock: TestSystemClock
        var configuration = Configuration()

        init(wall: Double) throws {
            work = try TemporaryDirectory()
            store = try GatewayStore(path: work.file("data/waymark.db"))
            try RecordingStore(database: store.database).setIntent(.armed)
            _ = try PairingStore(database: store.database).pair(identity: .iBeacon(uuid: "e2c56db5-dffb-48d2-b060-d0f5a71096e0", major: 1, minor: 1), role: .vehicle, label: "car", bindkey: nil)
            clock = TestSystemClock(wall: wall)
            configuration.recording.beaconLostTimeout = .seconds(30)
            configuration.recording.reopenWindow = .seconds(10)
            configuration.recording.beaconInterval = .seconds(1)
            configuration.recording.gapThreshold = .seconds(60)
        }

        func recorder() -> RecorderService {
            RecorderService.make(store: store, configuration: configuration, scanner: ScannerService(bus: nil), clock: clock,
                                   isAuthorized: { true }, samplesCommitted: { _, _ in })
        }

        /// A recorder that has reconciled with nothing missing: armed and running.
        func armedRecorder() async -> RecorderService {
            let recorder = recorder()
            await recorder.reconcile(missing: [])
            return recorder
        }

        /// The beacon seen once a second for `seconds`.
        func drive(_ recorder: RecorderService, seconds: Int) async {
            for _ in 0..<seconds {
                clock.advance(1)
                await recorder.handle(.observed(.vehicle(rssi: -50, at: clock.read().boot)))
            }
        }

        func samples() throws -> [(time: Double, source: String, kind: String)] {
            try store.database.read { connection in
                try connection.rows("SELECT time, time_source, kind FROM outbox ORDER BY seq") { ($0.real(0), $0.text(1) ?? "", $0.text(2) ?? "") }
            }
        }

        func events(_ kind: String) throws -> Int {
            Int(try store.database.read { try $0.scalar("SELECT count(*) FROM event WHERE kind = ?", [.text(kind)])?.integer ?? 0 })
        }
    }

    /// Booted in 1970, NTP jumps the clock forward by 56 years mid-trip, then
    /// a bad source sets it back by ten: one trip throughout, no gap, and it
    /// ends on the boot clock once the beacon is gone.
    @Test func aWallClockJumpingByYearsNeitherEndsNorFreezesATrip() async throws {
        let car = try Car(wall: 1_000)
        defer { car.work.remove() }
        let recorder = await car.armedRecorder()
        await car.drive(recorder, seconds: 5)
        #expect(await recorder.currentTrip != nil)

        car.clock.setWall(Self.now2026, synchronized: true)
        await car.drive(recorder, seconds: 5)
        await recorder.reconcile(missing: [])
        car.clock.setWall(Self.now2026 - 10 * Self.year, synchronized: false)
        await car.drive(recorder, seconds: 5)
        await recorder.reconcile(missing: [])
        #expect(await recorder.currentTrip != nil)
        #expect(try car.events("tripEnded") == 0 && car.events("telemetryGapDetected") == 0)

        // The beacon goes: lost timeout, then the reopen window, on the boot clock.
        car.clock.advance(31)
        await recorder.tick()
        car.clock.advance(11)
        await recorder.tick()
        #expect(await recorder.currentTrip == nil)
        let trips = try RecordingStore(database: car.store.database).trips()
        #expect(trips.count == 1 && trips[0].end != nil && trips[0].endReason == "beaconLost")
    }

    /// Samples taken before the clock was trusted are re-stamped from the
    /// boot clock once it is, and say so; later ones are `ntp`.
    @Test func unsyncedSamplesAreReStampedOnceTheClockIsTrusted() async throws {
        let car = try Car(wall: 1_000)
        defer { car.work.remove() }
        let recorder = await car.armedRecorder()
        await car.drive(recorder, seconds: 8)
        let early = try car.samples()
        #expect(!early.isEmpty && early.allSatisfy { $0.source == "unsynced" && $0.time < 2_000 })

        // NTP sets the clock: 2026, synchronized.
        car.clock.setWall(Self.now2026, synchronized: true)
        await car.drive(recorder, seconds: 3)
        let all = try car.samples()
        #expect(all.allSatisfy { $0.source == "ntp" }, "\(all.map(\.source))")
        // Each sample now sits where the boot clock puts it on the trusted clock.
        #expect(all.allSatisfy { abs($0.time - Self.now2026) < 12 }, "\(all.map(\.time))")
        #expect(all.map(\.time) == all.map(\.time).sorted())
    }

    /// A trip that starts before the clock is trusted moves with its
    /// samples: its start and its timeline (the beacon's readings) sit
    /// where the boot clock puts them on the trusted clock, not in 1970.
    @Test func aTripStartedBeforeTheClockIsTrustedIsReTimedWithItsSamples() async throws {
        let car = try Car(wall: 1_000)
        defer { car.work.remove() }
        let recorder = await car.armedRecorder()
        await car.drive(recorder, seconds: 8)
        let recordings = RecordingStore(database: car.store.database)
        let id = try #require(await recorder.currentTrip)
        #expect(try recordings.trips().first?.start.timeIntervalSince1970 ?? 0 < 2_000)

        car.clock.setWall(Self.now2026, synchronized: true)
        await car.drive(recorder, seconds: 3)
        let start = try #require(try recordings.trips().first).start.timeIntervalSince1970
        #expect(start > Self.now2026 - 12 && start < Self.now2026, "the trip starts \(start - Self.now2026) s from when NTP set the clock")
        let readings = try recordings.readings(of: id).map(\.time)
        #expect(!readings.isEmpty && readings.allSatisfy { $0 >= start && $0 > Self.now2026 - 12 && $0 < Self.now2026 + 4 }, "\(readings.map { $0 - Self.now2026 })")
        #expect(readings == readings.sorted())
    }

    /// A whole trip before the clock is trusted: its start and end are both
    /// re-timed once a sample is stamped by the trusted clock.
    @Test func aTripEndedBeforeTheClockIsTrustedIsReTimedToo() async throws {
        let car = try Car(wall: 1_000)
        defer { car.work.remove() }
        let recorder = await car.armedRecorder()
        await car.drive(recorder, seconds: 5)
        car.clock.advance(31)
        await recorder.tick()
        car.clock.advance(11)
        await recorder.tick()
        #expect(await recorder.currentTrip == nil)

        // The car leaves again: the next trip's samples are the first stamped by NTP.
        car.clock.setWall(Self.now2026, synchronized: true)
        await car.drive(recorder, seconds: 8)
        let trips = try RecordingStore(database: car.store.database).trips()
        #expect(trips.count == 2)
        let trip = try #require(trips.first)
        let (start, end) = (trip.start.timeIntervalSince1970, try #require(trip.end).timeIntervalSince1970)
        // Seen from 46 s to 42 s before the clock was set; the trip ends at the last sighting.
        #expect(abs(start - (Self.now2026 - 46)) < 2, "start \(start - Self.now2026), end \(end - Self.now2026)")
        #expect(abs(end - (Self.now2026 - 42)) < 2, "start \(start - Self.now2026), end \(end - Self.now2026)")
    }

    /// With no NTP, the receiver's time dates the samples (`gnss`).
    @Test func aGNSSFixDatesSamplesWhileTheSystemClockIsUnsynced() async throws {
        let car = try Car(wall: 1_000)
        defer { car.work.remove() }
        let recorder = await car.armedRecorder()
        await car.drive(recorder, seconds: 4)
        var fix = Fix()
        fix.mode = 3
        fix.time = Self.now2026
        await recorder.handle(.observed(.fix(fix, at: car.clock.read().boot)))
        await car.drive(recorder, seconds: 3)
        let samples = try car.samples()
        #expect(samples.allSatisfy { $0.source == "gnss" && abs($0.time - Self.now2026) < 8 }, "\(samples)")
        // The heartbeat keeps the trusted (GNSS) time, not the unsynced system clock.
        await recorder.shutdown()
        let heartbeat = try #require(try RecordingStore(database: car.store.database).heartbeat)
        #expect(heartbeat.trusted && abs(heartbeat.wall - Self.now2026) < 8, "\(heartbeat)")
    }

    /// A restart in the same boot measures the dead time on the boot clock,
    /// whatever the wall clock did meanwhile.
    @Test func aRestartAfterTheWallClockJumpedMeasuresTheGapOnTheBootClock() async throws {
        let car = try Car(wall: Self.now2026)
        defer { car.work.remove() }
        let first = car.recorder()
        await first.reconcile(missing: [])
        await car.drive(first, seconds: 3)
        await first.shutdown()
        // Dead for 90 s; meanwhile the wall clock went back five years.
        car.clock.advance(90)
        car.clock.setWall(Self.now2026 - 5 * Self.year, synchronized: false)
        let second = car.recorder()
        await second.reconcile(missing: [])
        let detail = try #require(try car.store.lastEvent(.telemetryGapDetected)).detail
        #expect(detail.contains(#""seconds":"90""#), "\(detail)")
        // After a reboot with an untrusted clock, the gap is counted from the boot.
        await second.shutdown()
        car.clock.reboot(wall: 1_000, boot: 70, bootID: "boot-2")
        let third = car.recorder()
        await third.reconcile(missing: [])
        let after = try #require(try car.store.lastEvent(.telemetryGapDetected)).detail
        #expect(after.contains(#""seconds":"70""#), "\(after)")
    }
}
