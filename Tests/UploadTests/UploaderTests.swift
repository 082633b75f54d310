import Basics
import Foundation
import PeerHarness
import Session
import Storage
import Telemetry
import Testing
@testable import Upload
import Vocabulary

/// Each fault the ingest server can inject ends the same way: every sample
/// stored once at the server, and the outbox empty (or holding only dead
/// letters, with their reasons).
@Suite(.serialized)
struct UploaderTests {
    static let transientFaults = [
        #"{"kind":"500"}"#, #"{"kind":"401"}"#, #"{"kind":"close"}"#, #"{"kind":"ack-drop"}"#, #"{"kind":"delay","delay":0.3}"#,
    ]

    @Test(arguments: transientFaults)
    func aTransientFaultIsRetriedUntilEverySampleIsStoredOnce(_ fault: String) async throws {
        let rig = try await UploadRig()
        defer { rig.stop() }
        try rig.record(250)
        try rig.backend.setFaults(#"{"queue":[\#(fault),\#(fault)]}"#)
        let uploader = rig.uploader(clock: ContinuousClock())
        let running = Task { await uploader.run() }
        uploader.flush()
        let events = try await UploadRig.untilSettled(uploader.events)
        running.cancel()
        await running.value
        let summary = try rig.backend.summary()
        #expect(summary.stored == 250 && summary.conflicts == 0)
        #expect(try rig.backend.missing(upto: 250).isEmpty)
        #expect(try rig.outbox.status().depth == 0)
        #expect(events.last == .drained)
        if fault.contains("ack-drop") { #expect(summary.duplicates > 0, "the resent batch was absorbed by its key") }
    }

    /// The server answers after the client gave up: the client resends, and
    /// the idempotency key and (device, seq) keep the store exact.
    @Test func anAnswerSlowerThanTheTimeoutIsRetriedWithoutDuplicates() async throws {
        let rig = try await UploadRig()
        defer { rig.stop() }
        try rig.record(50)
        try rig.backend.setFaults(#"{"queue":[{"kind":"delay","delay":1.5}]}"#)
        var options = UploadRig.quick
        options.requestTimeout = .seconds(1)
        let uploader = rig.uploader(options, clock: ContinuousClock())
        let running = Task { await uploader.run() }
        uploader.flush()
        let events = try await UploadRig.untilSettled(uploader.events)
        running.cancel()
        await running.value
        #expect(events.contains { if case .retrying(nil, _) = $0 { true } else { false } })
        #expect(try rig.backend.summary().stored == 50)
        #expect(try rig.outbox.status().depth == 0)
    }

    @Test func tooManyRequestsWaitsForRetryAfter() async throws {
        let rig = try await UploadRig()
        defer { rig.stop() }
        try rig.record(10)
        try rig.backend.setFaults(#"{"queue":[{"kind":"429","retry_after":1}]}"#)
        var options = UploadRig.quick
        options.retryCap = .seconds(5)
        let uploader = rig.uploader(options, clock: ContinuousClock())
        let running = Task { await uploader.run() }
        uploader.flush()
        let events = try await UploadRig.untilSettled(uploader.events)
        running.cancel()
        await running.value
        let waits = events.compactMap { if case .retrying(429, let delay) = $0 { delay } else { nil } }
        #expect(waits.count == 1 && waits[0] >= .seconds(1))
        #expect(try rig.backend.summary().stored == 10)
    }

    /// Above the server's size limit the batch is halved until it fits.
    @Test func aBatchTooLargeIsSplitUntilItFits() async throws {
        let rig = try await UploadRig()
        defer { rig.stop() }
        try rig.record(400)
        try rig.backend.setFaults(#"{"max_bytes":700}"#)
        let uploader = rig.uploader(clock: ContinuousClock())
        let running = Task { await uploader.run() }
        uploader.flush()
        let events = try await UploadRig.untilSettled(uploader.events)
        running.cancel()
        await running.value
        let batches = events.compactMap { if case .uploaded(let first, let last) = $0 { last - first + 1 } else { nil } }
        #expect(batches.count > 4 && batches.allSatisfy { $0 < 100 })
        #expect(try rig.backend.summary().stored == 400)
        #expect(try rig.outbox.status().depth == 0)
    }

    /// A permanent refusal goes to the dead letters with its status and the
    /// server's words, the rest still uploads, and `retryDeadLetters` requeues it.
    @Test func aPermanentRefusalBecomesADeadLetterAndTheRestUploads() async throws {
        let rig = try await UploadRig()
        defer { rig.stop() }
        try rig.record(250)
        try rig.backend.setFaults(#"{"queue":[{"kind":"400"}]}"#)
        let uploader = rig.uploader(clock: ContinuousClock())
        let running = Task { await uploader.run() }
        uploader.flush()
        let events = try await UploadRig.untilSettled(uploader.events)
        #expect(events.contains(.deadLettered(first: 1, last: 100, status: 400)))
        #expect(try rig.backend.summary().stored == 150)
        let status = try rig.outbox.status()
        #expect(status.depth == 0 && status.deadLetters == 1)
        let reason = try rig.database.read { try $0.scalar("SELECT reason FROM dead_letter")?.text }
        #expect(reason?.contains("rejected by test") == true)

        #expect(try rig.outbox.retryDeadLetters() == 100)
        uploader.flush()
        _ = try await UploadRig.untilSettled(uploader.events)
        running.cancel()
        await running.value
        #expect(try rig.backend.summary().stored == 250)
        #expect(try rig.outbox.status() .deadLetters == 0)
    }

    /// The provider refuses the refresh: nothing is sent, the data stays,
    /// and a new login flushes everything.
    @Test func withTheRefreshRejectedNothingIsSentUntilTheNextLogin() async throws {
        let rig = try await UploadRig()
        defer { rig.stop() }
        try rig.record(120)
        try rig.provider.revokeAll()
        _ = try? await rig.session.refresh()
        #expect(!(await rig.session.isAuthorized))
        let uploader = rig.uploader(clock: ContinuousClock())
        let running = Task { await uploader.run() }
        uploader.flush()
        #expect(try await UploadRig.untilSettled(uploader.events).last == .waitingForLogin)
        #expect(try rig.backend.summary().posts == 0)
        #expect(try rig.outbox.status().depth == 120)

        _ = try await rig.session.loginWithPassword(username: Glewlwyd.username, password: Glewlwyd.password)
        uploader.flush()
        #expect(try await UploadRig.untilSettled(uploader.events).last == .drained)
        running.cancel()
        await running.value
        #expect(try rig.backend.summary().stored == 120)
    }

    /// At the cap, the oldest samples go, and the record says exactly which.
    @Test func theSizeCapDropsTheOldestAndRecordsTheRangeExactly() async throws {
        let rig = try await UploadRig()
        defer { rig.stop() }
        try rig.record(150, startingAt: 1_796_000_000)
        let (uploader, running) = Self.cappedAt100(rig)
        let events = try await UploadRig.untilSettled(uploader.events)
        running.cancel()
        await running.value
        let dropped = try #require(events.compactMap { if case .dataDropped(let range) = $0 { range } else { nil } }.first)
        #expect(dropped == DroppedRange(firstSeq: 1, lastSeq: 50, firstTime: 1_796_000_000, lastTime: 1_796_000_004.9, count: 50))
        let stored = try rig.database.read { connection in
            try connection.rows("SELECT first_seq, last_seq, count FROM dropped_range") { [$0.integer(0), $0.integer(1), $0.integer(2)] }
        }
        #expect(stored == [[1, 50, 50]])
        #expect(try rig.backend.summary().stored == 100)
        #expect(try rig.backend.missing(upto: 150) == Array(1...50))
    }

    /// The store refuses the cap's record of what it drops: the failure is
    /// an event, and the next drain enforces the cap, dropping exactly what
    /// it would have. (Logged out, so that nothing leaves the queue meanwhile.)
    @Test func aCapTheStoreRefusesIsReportedAndEnforcedAtTheNextDrain() async throws {
        let rig = try await UploadRig()
        defer { rig.stop() }
        try rig.record(150, startingAt: 1_796_000_000)
        try rig.provider.revokeAll()
        _ = try? await rig.session.refresh()
        try rig.database.write { try $0.run("CREATE TRIGGER injected BEFORE INSERT ON dropped_range BEGIN SELECT RAISE(ABORT, 'injected fault'); END") }
        let (uploader, running) = Self.cappedAt100(rig)
        let events = try await UploadRig.untilSettled(uploader.events)
        #expect(events.contains { if case .capNotEnforced(let why) = $0 { why.contains("injected fault") } else { false } }, "\(events)")
        #expect(!events.contains { if case .dataDropped = $0 { true } else { false } })
        #expect(try rig.outbox.status().depth == 150)

        try rig.database.write { try $0.run("DROP TRIGGER injected") }
        uploader.flush()
        let later = try await UploadRig.untilSettled(uploader.events)
        running.cancel()
        await running.value
        let dropped = try #require(later.compactMap { if case .dataDropped(let range) = $0 { range } else { nil } }.first, "\(later)")
        #expect(dropped.firstSeq == 1 && dropped.lastSeq == 50)
        #expect(try rig.outbox.status().depth == 100)
    }

    /// An uploader whose queue holds at most 100 samples, running and flushed.
    static func cappedAt100(_ rig: UploadRig) -> (Uploader<ContinuousClock>, Task<Void, Never>) {
        var options = UploadRig.quick
        options.maxQueuedSamples = 100
        let uploader = rig.uploader(options, clock: ContinuousClock())
        let running = Task { await uploader.run() }
        uploader.flush()
        return (uploader, running)
    }

    @Test func batchesCarryGzipAndAnIdempotencyKeyFromDeviceAndSeqRange() throws {
        let batch = Batch(samples: [
            QueuedSample(seq: 7, sample: Sample(time: 1_444_468_352, tripID: nil, payload: .event(Event(.telemetryGapDetected)))),
            QueuedSample(seq: 9, sample: Sample(time: 1_444_468_353.5, tripID: "t\"1", payload: .beacon(rssi: nil))),
        ])
        #expect(batch.idempotencyKey(deviceID: "gw") == "gw:7-9")
        let json = String(decoding: batch.json(deviceID: "gw"), as: UTF8.self)
        #expect(json == #"{"device_id":"gw","samples":[{"seq":7,"time":"2015-10-10T09:12:32.000Z","trip_id":null,"time_source":"ntp","kind":"event","type":"telemetryGapDetected"},{"seq":9,"time":"2015-10-10T09:12:33.500Z","trip_id":"t\"1","time_source":"ntp","kind":"beacon"}]}"#)
        #expect(try JSONSerialization.jsonObject(with: Data(json.utf8)) is [String: Any])
    }
}

extension UploaderTests {
    /// The byte cap drops the fewest oldest samples that bring the queue
    /// under it, and records them.
    @Test func theByteCapDropsJustEnoughOfTheOldest() throws {
        let directory = try TemporaryDirectory("waymark-cap")
        defer { directory.remove() }
        let outbox = Outbox(database: try Database(path: directory.file("o.db"), migrations: Migration.numbered([Outbox.schema] + Outbox.changes)))
        try outbox.append((0..<150).map { Sample(time: 1_796_000_000 + Double($0), payload: .beacon(rssi: $0)) })
        let total = try outbox.status().bytes
        let cap = total * 2 / 3
        let dropped = try #require(try outbox.enforceCap(maxRows: .max, maxBytes: cap, at: 0).dropped)
        let left = try outbox.status().bytes
        #expect(dropped.firstSeq == 1 && left <= cap)
        let lastDropped = outbox.database.read { _ in QueuedSample(seq: dropped.lastSeq, sample: Sample(
            time: 1_796_000_000 + Double(dropped.lastSeq - 1), payload: .beacon(rssi: Int(dropped.lastSeq - 1)))).bytes }
        #expect(left + lastDropped > cap, "no more than needed went")
        #expect(try outbox.status().depth == 150 - dropped.count)
    }
}

extension UploaderTests {
    /// The size the queue counts for a sample is its object in the request
    /// body, plus room for the separator and its final sequence number.
    @Test func aSamplesCountedSizeIsItsObjectInTheBody() {
        var fix = Fix()
        (fix.mode, fix.lat, fix.lon) = (3, 48.2, 8.4)
        let samples = [
            QueuedSample(seq: 0, sample: Sample(time: 1_796_000_000, tripID: "trip-1", payload: .fix(fix))),
            QueuedSample(seq: 123_456, sample: Sample(time: -1e300, tripID: "t\"\\\n\u{1}é", payload: .event(Event(.telemetryGapDetected, [.from: "b"])), timeSource: .unsynced)),
            QueuedSample(seq: -7, sample: Sample(time: .nan, payload: .beacon(rssi: nil), timeSource: .gnss)),
        ]
        for sample in samples {
            #expect(sample.bytes == Batch.object(sample).utf8.count + 8, "\(Batch.object(sample))")
        }
    }
}

extension UploaderTests {
    /// Once the clock is trusted, this boot's unsynced samples take their
    /// true times, but not those already handed to a sink: a resend after a
    /// lost acknowledgement, a restart or a power cut must carry the same
    /// sample under the same seq, or the backend holds two versions of it.
    @Test func aSampleHandedToASinkIsResentAsItWasSentEvenAfterAReStamp() throws {
        let directory = try TemporaryDirectory("waymark-restamp")
        defer { directory.remove() }
        let outbox = Outbox(database: try Database(path: directory.file("o.db"), migrations: Migration.numbered([Outbox.schema] + Outbox.changes)))
        func unsynced(_ boot: Double) -> Sample {
            Sample(time: 86_400 + boot, payload: .beacon(rssi: -60), timeSource: .unsynced, boot: ("boot-1", boot))
        }
        try outbox.append((1...4).map { unsynced(Double($0)) })
        let sent = try #require(try outbox.oldest(count: 2, bytes: .max))
        try outbox.append([unsynced(5)])

        #expect(try outbox.restamp(bootID: "boot-1", offset: 1_796_000_000, source: .gnss) == 3)
        let resent = try #require(try outbox.oldest(count: 2, bytes: .max))
        #expect(resent.json(deviceID: "d") == sent.json(deviceID: "d"))
        let rest = try #require(try outbox.oldest(count: 10, bytes: .max, after: 2))
        #expect(rest.samples.map(\.seq) == [3, 4, 5])
        #expect(rest.samples.allSatisfy { $0.timeSource == .gnss && $0.time > 1_796_000_000 })
    }
}
