import BlueZ
import Config
@testable import Daemon
import Foundation
import Pairings
import PeerHarness
import Recorder
import Recording
import Run
import Storage
import Store
import Testing
import Upload
import Vocabulary

/// Write errors injected at the store's seam, with SQLite's own triggers:
/// each is reported, and nothing is lost once the store takes writes again.
struct StoreFaultTests {
    /// An armed, running recorder with the car's beacon paired.
    static func runningRecorder(_ work: TemporaryDirectory) async throws -> (GatewayStore, RecorderService) {
        let store = try GatewayStore(path: work.file("data/waymark.db"))
        try RecordingStore(database: store.database).setIntent(.armed)
        _ = try PairingStore(database: store.database).pair(identity: .iBeacon(uuid: "e2c56db5-dffb-48d2-b060-d0f5a71096e0", major: 1, minor: 1), role: .vehicle, label: "car", bindkey: nil)
        var configuration = Configuration()
        configuration.recording.fixInterval = .zero
        let recorder = RecorderService.make(store: store, configuration: configuration, scanner: ScannerService(bus: nil),
                                            isAuthorized: { true }, samplesCommitted: { _, _ in })
        await recorder.reconcile(missing: [])
        return (store, recorder)
    }

    static func refuse(_ statement: String, on table: String, in store: GatewayStore) throws {
        try store.database.write { try $0.run("CREATE TRIGGER injected BEFORE \(statement) ON \(table) BEGIN SELECT RAISE(ABORT, 'injected fault'); END") }
    }

    static func heal(_ store: GatewayStore) throws {
        try store.database.write { try $0.run("DROP TRIGGER injected") }
    }

    @Test func aTripRowThatCannotBeWrittenIsHeldWithItsSamplesAndStoredOnceTheStoreTakesWrites() async throws {
        let work = try TemporaryDirectory()
        defer { work.remove() }
        let (store, recorder) = try await Self.runningRecorder(work)
        let recordings = RecordingStore(database: store.database)
        let outbox = Outbox(database: store.database)
        let before = try outbox.status().depth

        try Self.refuse("INSERT", on: "trip", in: store)
        let start = Date().timeIntervalSince1970
        for step in 0..<3 { await recorder.handle(.observed(.vehicle(rssi: -50, at: start + Double(step)))) }
        for step in 0..<5 { await recorder.handle(.observed(.fix(DiskFullTests.fix(step), at: start + 3 + Double(step)))) }
        let trip = try #require(await recorder.currentTrip, "the core started a trip")
        #expect(try recordings.trips().isEmpty, "the trip's row was refused")
        #expect(try outbox.status().depth == before, "and its samples with it, in the same transaction")
        let held = await recorder.unsaved.samples.count
        #expect(held >= 6, "held in memory: \(held)")
        #expect(await recorder.running, "a write error that is not a full disk does not stop recording")

        try Self.heal(store)
        await recorder.handle(.observed(.fix(DiskFullTests.fix(5), at: start + 8)))
        #expect(try recordings.trips().map(\.id) == [trip], "stored once the store took writes")
        #expect(try outbox.status().depth == before + held + 1, "every sample held is queued, and the new one")
        #expect(await recorder.unsaved.isEmpty)
        #expect(try store.lastEvent(.tripStarted)?.detail.contains(trip.rawValue) == true)
    }

    @Test func heldSamplesPastTheLimitAreDroppedOldestFirstAndTheDropIsAnEvent() async throws {
        let work = try TemporaryDirectory()
        defer { work.remove() }
        let (store, recorder) = try await Self.runningRecorder(work)
        let outbox = Outbox(database: store.database)
        let start = Date().timeIntervalSince1970
        for step in 0..<3 { await recorder.handle(.observed(.vehicle(rssi: -50, at: start + Double(step)))) }
        let before = try outbox.status().depth

        try Self.refuse("INSERT", on: "outbox", in: store)
        let limit = await recorder.unsaved.limit
        for step in 0..<(limit + 10) { await recorder.handle(.observed(.fix(DiskFullTests.fix(step), at: start + 3 + Double(step) * 0.01))) }
        #expect(await recorder.unsaved.samples.count == limit)
        #expect(await recorder.unsaved.dropped >= 10)
        try Self.heal(store)
        await recorder.handle(.observed(.fix(DiskFullTests.fix(limit + 10), at: start + 4 + Double(limit) * 0.01)))
        #expect(try outbox.status().depth >= before + limit)
        let dropped = try #require(try store.lastEvent(.dataDropped))
        #expect(dropped.detail.contains("the store refused writes"), "\(dropped.detail)")
    }
}
