import Basics
@testable import Daemon
import Foundation
import Location
import PeerHarness
import Recording
import Storage
import Store
import Telemetry
import Testing
import Vocabulary

/// gpsfake plays a receiver's log faster than real time and starts it over
/// at its end: while the system clock is unsynced, the receiver's time
/// dates the samples, and it runs ahead, then jumps back. Within a trip,
/// times never go back in the order samples are queued, and no trip ends
/// before it starts, live and replayed alike.
struct TripTimeOrderTests {
    /// Each trip's sample times in seq order, and its start and end.
    static func timelines(_ store: GatewayStore) throws -> [(trip: StoredTrip, times: [Double])] {
        let rows = try store.database.read { connection in
            try connection.rows("SELECT trip_id, time FROM outbox WHERE trip_id IS NOT NULL ORDER BY seq") { ($0.text(0) ?? "", $0.real(1)) }
        }
        return try RecordingStore(database: store.database).trips().map { trip in (trip, rows.filter { $0.0 == trip.id.rawValue }.map(\.1)) }
    }

    static func expectInOrder(_ timelines: [(trip: StoredTrip, times: [Double])], _ context: String) {
        #expect(!timelines.isEmpty, "no trip \(context)")
        for (trip, times) in timelines {
            let start = trip.start.timeIntervalSince1970
            let back = zip(times, times.dropFirst()).filter { $0.1 < $0.0 }
            #expect(back.isEmpty, "\(context): \(trip.id) goes back \(back.count) times, by up to \(back.map { $0.0 - $0.1 }.max() ?? 0) s")
            #expect(times.allSatisfy { $0 >= start }, "\(context): \(trip.id) has samples before its start")
            if let end = trip.end?.timeIntervalSince1970 {
                #expect(end >= start, "\(context): \(trip.id) ends \(start - end) s before it starts")
                #expect(times.allSatisfy { $0 <= end }, "\(context): \(trip.id) has samples after its end")
            }
        }
    }

    @Test func aReceiverRunningFastAndStartingOverNeverTakesALiveTripBack() async throws {
        let car = try ClockJumpTests.Car(wall: 1_000)
        defer { car.work.remove() }
        let recorder = await car.armedRecorder()
        // Twenty receiver seconds per second, and its log of 400 s starts over.
        var fix = Fix()
        fix.mode = 3
        (fix.lat, fix.lon) = (48.2, 8.41)
        for step in 0..<240 {
            car.clock.advance(0.25)
            fix.time = ClockJumpTests.now2026 + (Double(step) * 5).truncatingRemainder(dividingBy: 400)
            // As the recorder's loop takes a fix that a line closed.
            await recorder.handle(.observed(.fix(fix, at: car.clock.read().boot)))
            if step % 2 == 0 { await recorder.handle(.observed(.vehicle(rssi: -50, at: car.clock.read().boot))) }
        }
        car.clock.advance(31)
        await recorder.tick()
        car.clock.advance(11)
        await recorder.tick()
        Self.expectInOrder(try Self.timelines(car.store), "live")
    }

    @Test func aReceiverRunningFastAndStartingOverNeverTakesAReplayedTripBack() throws {
        let work = try TemporaryDirectory("waymark-trip-order")
        defer { work.remove() }
        var drive = BusyAirCapture(seconds: 120, beaconInRange: [10..<90])
        (drive.noiseDevices, drive.clockSynchronized, drive.receiverSpeed, drive.receiverLoop) = (2, false, 20, 600)
        try drive.write(to: work.file("drive.wmcap"))
        let replayed = try ReplayTests.replay(work.file("drive.wmcap"), into: work.file("data"))
        #expect(replayed.status == 0 && replayed.trips.count == 1, "\(replayed.output)")
        Self.expectInOrder(try Self.timelines(try GatewayStore(path: work.file("data/waymark.db"))), "replayed")
    }
}
