import Basics
import Foundation
import PeerHarness
import Recorder
import Recording
import Storage
import Store
import Telemetry
import Testing
import Vocabulary

/// The executor against a real store, on a test clock.
struct RecordingExecutorTests {
    static let ready = RecordingConditions(intent: .armed, authorized: true, missing: [])

    static func executor(_ store: GatewayStore, clock: TestSystemClock) -> RecordingExecutor {
        let core = RecordingCore(intent: .armed, lastCollected: nil, gapThreshold: 60,
                                 trips: TripDetector.Options(startSightings: 2, startWindow: 10, lostTimeout: 5, reopenWindow: 10, maxDuration: 3600),
                                 samples: SamplePolicy.Options(fixInterval: 1, beaconInterval: 1, sensorInterval: 60))
        return RecordingExecutor(core: core, stamper: SampleStamper(clock: clock, store: store), store: store)
    }

    /// A trip that starts before the clock can be trusted, on a Pi whose
    /// unsynced clock is days ahead of its receiver's: when the first fix
    /// dates it, the trip's start, its `tripStarted` event (time and `at`)
    /// and its first sample all move to the receiver's time together, so
    /// the trip neither starts before its first sample nor after its event.
    @Test func aTripStartedOnAnUnsyncedClockMovesWithItsEventWhenTheReceiverDatesIt() throws {
        let work = try TemporaryDirectory()
        defer { work.remove() }
        let store = try GatewayStore(path: work.file("data/waymark.db"))
        let clock = TestSystemClock(wall: 1_796_544_837.25, boot: 100)
        var executor = Self.executor(store, clock: clock)
        _ = executor.handle(.reconcile(Self.ready, at: 100))
        for boot in [101.0, 102.0] {
            clock.advance(1)
            _ = executor.handle(.observed(.vehicle(rssi: -60, at: boot)))
        }
        let trip = try #require(try executor.stamper.recordings.trips().first)
        #expect(trip.start.timeIntervalSince1970 > 1_796_544_837, "stamped on the unsynced clock first")

        // The receiver's time is six days behind the system clock's.
        clock.advance(1)
        var fix = Fix()
        (fix.mode, fix.time, fix.lat, fix.lon) = (3, 1_796_026_403, 52.5, 13.4)
        _ = executor.handle(.observed(.fix(fix, at: 103)))

        let start = try #require(try executor.stamper.recordings.trips().first).start.timeIntervalSince1970
        #expect(abs(start - (1_796_026_403 - 2)) < 0.001, "the trip starts at the receiver's time of its first sighting")
        let event = try #require(try store.lastEvent(.tripStarted))
        #expect(event.time.timeIntervalSince1970 == start)
        #expect(event.detail.contains(#""at":"\#(CivilTime.iso8601(start))""#), "\(event.detail)")
        let first = try store.database.read {
            try $0.scalar("SELECT min(time) FROM outbox WHERE trip_id = ?", [.text(trip.id.rawValue)])?.real
        }
        #expect(first == start)
        let unsynced = try store.database.read { try $0.scalar("SELECT count(*) FROM event WHERE boot_id IS NOT NULL")?.integer }
        #expect(unsynced == 0, "every event of this boot is re-stamped")
    }

    /// A synchronized system clock and a receiver minutes behind it (a
    /// buffered or stale receiver): trips and samples keep the system's
    /// time, so the trip's start, its event and its first sample agree;
    /// the receiver's time stays in the fix it came with.
    @Test func aReceiverMinutesOffASynchronizedClockMovesNoTripTime() throws {
        let work = try TemporaryDirectory()
        defer { work.remove() }
        let store = try GatewayStore(path: work.file("data/waymark.db"))
        let clock = TestSystemClock(wall: 1_796_544_837.25, boot: 100, synchronized: true)
        var executor = Self.executor(store, clock: clock)
        _ = executor.handle(.reconcile(Self.ready, at: 100))
        var fix = Fix()
        (fix.mode, fix.time, fix.lat, fix.lon) = (3, 1_796_544_837.25 - 600, 52.5, 13.4)
        for boot in [101.0, 102.0] {
            clock.advance(1)
            _ = executor.handle(.observed(.fix(fix, at: boot)))
            _ = executor.handle(.observed(.vehicle(rssi: -60, at: boot)))
        }
        let start = try #require(try executor.stamper.recordings.trips().first).start.timeIntervalSince1970
        #expect(start == 1_796_544_837.25 + 1, "the system's time of the first sighting")
        #expect(try store.lastEvent(.tripStarted)?.time.timeIntervalSince1970 == start)
        let times = try store.database.read { try $0.rows("SELECT time, time_source FROM outbox WHERE trip_id IS NOT NULL ORDER BY seq") { ($0.real(0), $0.text(1)) } }
        #expect(times.first?.0 == start && times.allSatisfy { $0.0 >= start && $0.1 == "ntp" }, "\(times)")
    }
}
