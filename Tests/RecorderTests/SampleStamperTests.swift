import Basics
import Foundation
import PeerHarness
import Recorder
import Recording
import Storage
import Store
import Telemetry
import Testing
import Upload

/// The stamper against a real store, with write errors injected by SQLite's own triggers.
struct SampleStamperTests {
    static func unsyncedTimes(_ store: GatewayStore) throws -> Int64 {
        try store.database.read { try $0.scalar("SELECT count(*) FROM outbox WHERE time_source = 'unsynced'")?.integer ?? -1 }
    }

    static func beacon(at boot: Double) -> RecordedSample {
        RecordedSample(time: boot, tripID: nil, payload: .beacon(rssi: -50))
    }

    @Test func aReStampTheStoreRefusesIsTriedAgainWithTheNextSample() throws {
        let work = try TemporaryDirectory()
        defer { work.remove() }
        let store = try GatewayStore(path: work.file("data/waymark.db"))
        let outbox = Outbox(database: store.database)
        let clock = TestSystemClock(wall: 1_000_000, boot: 100)
        var stamper = SampleStamper(clock: clock, outbox: outbox, recordings: RecordingStore(database: store.database))
        _ = try outbox.append(stamper.stamp((0..<3).map { Self.beacon(at: 100 + Double($0)) }))
        #expect(try Self.unsyncedTimes(store) == 3)

        // NTP sets the clock while the store refuses updates of the queue.
        clock.advance(5)
        clock.setWall(1_796_000_000, synchronized: true)
        try store.database.write { try $0.run("CREATE TRIGGER injected BEFORE UPDATE ON outbox BEGIN SELECT RAISE(ABORT, 'injected fault'); END") }
        let trusted = stamper.stamp([Self.beacon(at: 105)])
        #expect(trusted.first?.timeSource == .ntp)
        #expect(try Self.unsyncedTimes(store) == 3, "the re-stamp was refused")

        try store.database.write { try $0.run("DROP TRIGGER injected") }
        _ = stamper.stamp([Self.beacon(at: 106)])
        #expect(try Self.unsyncedTimes(store) == 0, "the next sample re-stamped them")
        let times = try store.database.read { try $0.rows("SELECT time FROM outbox ORDER BY seq") { $0.real(0) } }
        let expected: [Double] = [1_796_000_000 - 5, 1_796_000_000 - 4, 1_796_000_000 - 3]
        #expect(times == expected)
    }
}
