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
import Telemetry
import Testing
import Upload
import Vocabulary

/// A full disk, made with SQLite's own page limit on the store: recording
/// stops with storage lost while running, the intent stays armed, and what
/// was committed before is intact.
struct DiskFullTests {
    @Test func aFullDiskStopsRecordingAndCorruptsNothing() async throws {
        let work = try TemporaryDirectory()
        defer { work.remove() }
        let (store, recorder) = try await StoreFaultTests.runningRecorder(work)
        #expect(await recorder.running)
        let start = Date().timeIntervalSince1970
        for step in 0..<3 { await recorder.handle(.observed(.vehicle(rssi: -50, at: start + Double(step)))) }
        for step in 0..<50 { await recorder.handle(.observed(.fix(Self.fix(step), at: start + 3 + Double(step)))) }
        let outbox = Outbox(database: store.database)
        let before = try outbox.status().depth
        #expect(before > 50)

        // No page may be added from now on.
        let pages = try store.database.read { try $0.scalar("PRAGMA page_count")?.integer ?? 0 }
        try store.database.write { try $0.run("PRAGMA max_page_count = \(pages)") }
        var step = 0
        while await recorder.running, step < 100_000 {
            await recorder.handle(.observed(.fix(Self.fix(step, everyField: true), at: start + 60 + Double(step))))
            step += 1
        }
        #expect(!(await recorder.running), "recording stopped")
        #expect(await recorder.intent == .armed, "the intent is kept")
        #expect(try store.database.read { try $0.scalar("PRAGMA integrity_check")?.text } == "ok")
        #expect(try outbox.status().depth >= before, "nothing committed was lost")
    }

    /// Outside a trip, a health report is the only sample written: on a full
    /// disk it too stops recording as storage lost, rather than vanishing.
    @Test func aHealthReportOnAFullDiskStopsRecordingAsStorageLost() async throws {
        let work = try TemporaryDirectory()
        defer { work.remove() }
        let store = try GatewayStore(path: work.file("data/waymark.db"))
        try RecordingStore(database: store.database).setIntent(.armed)
        let recorder = RecorderService.make(store: store, configuration: Configuration(), scanner: ScannerService(bus: nil),
                                   isAuthorized: { true }, samplesCommitted: { _, _ in })
        await recorder.reconcile(missing: [])
        #expect(await recorder.running)
        let pages = try store.database.read { try $0.scalar("PRAGMA page_count")?.integer ?? 0 }
        try store.database.write { try $0.run("PRAGMA max_page_count = \(pages)") }
        var reports = 0
        while await recorder.running, reports < 10_000 {
            // What the recorder's loop does with each report the health service takes.
            await recorder.commitHealth(recorder.health.report(seconds: 300, pairings: []), at: await recorder.now)
            reports += 1
        }
        #expect(!(await recorder.running), "recording stopped after \(reports) reports")
        #expect(try store.lastEvent(.requirementsLostWhileRunning)?.detail.contains("storage") == true)
        #expect(await recorder.healthFacts().storeProblem == "the disk is full")
    }

    /// A 3D fix that moves a little with each step; with every field, about
    /// 200 bytes of JSON.
    static func fix(_ step: Int, everyField: Bool = false) -> Fix {
        var fix = Fix()
        fix.mode = 3
        fix.lat = 48.2 + Double(step) * 1e-6
        fix.lon = 8.4
        if everyField {
            fix.time = 1_796_000_000 + Double(step)
            (fix.status, fix.altHAE, fix.altMSL, fix.speed, fix.track, fix.climb) = (1, 812.5, 765.8, 13.9, 271.5, 0.1)
            (fix.eph, fix.epv, fix.ept, fix.satellitesUsed, fix.satellitesSeen) = (2.5, 4.1, 0.005, 9, 14)
        }
        return fix
    }
}
