import Dispatch
import Foundation
import HTTP
import PeerHarness
import Session
import Storage
import Testing
import Uplink
@testable import Upload

/// What hotel Wi-Fi, proxies and a busy store do to an upload.
extension UploaderTests {
    /// A captive portal answers 200 with its own page; a confused proxy
    /// 200 with some other JSON. Neither is the contract's acknowledgement,
    /// so the batch stays queued and goes again.
    @Test(arguments: [#"{"kind":"portal"}"#, #"{"kind":"not-ack"}"#])
    func aTwoHundredThatIsNotAnAcknowledgementKeepsTheBatch(_ fault: String) async throws {
        let rig = try await UploadRig()
        defer { rig.stop() }
        try rig.record(150)
        try rig.backend.setFaults(#"{"queue":[\#(fault),\#(fault)]}"#)
        let uploader = rig.uploader(clock: ContinuousClock())
        let running = Task { await uploader.run() }
        uploader.flush()
        let events = try await UploadRig.untilSettled(uploader.events)
        running.cancel()
        await running.value
        #expect(events.filter { if case .retrying(200, _) = $0 { true } else { false } }.count == 2)
        let summary = try rig.backend.summary()
        #expect(summary.stored == 150 && summary.duplicates == 0 && summary.conflicts == 0)
        #expect(try rig.outbox.status().depth == 0)
    }

    /// `Retry-After` that is not a number of seconds in range is ignored: the
    /// uploader's own capped backoff applies, and nothing traps.
    @Test(arguments: ["nan", "inf", "-inf", "1e20", "-5", "1e400", "", "soon"])
    func anUnusableRetryAfterFallsBackToTheCappedBackoff(_ header: String) async throws {
        let rig = try await UploadRig()
        defer { rig.stop() }
        try rig.record(20)
        try rig.backend.setFaults(#"{"queue":[{"kind":"503","retry_after":"\#(header)"}]}"#)
        let uploader = rig.uploader(clock: ContinuousClock())
        let running = Task { await uploader.run() }
        uploader.flush()
        let events = try await UploadRig.untilSettled(uploader.events)
        running.cancel()
        await running.value
        let waits = events.compactMap { if case .retrying(503, let delay) = $0 { delay } else { nil } }
        #expect(waits.count == 1 && waits[0] <= UploadRig.quick.retryCap)
        #expect(try rig.backend.summary().stored == 20)
        #expect(try rig.outbox.status().depth == 0)
    }

    @Test func retryAfterTakesSecondsOrAnHTTPDateAndRefusesTheRest() {
        let now = 784_111_777.0 // Sun, 06 Nov 1994 08:49:37 GMT
        #expect(RetryAfter.parse("120", now: now) == .delay(.seconds(120)))
        #expect(RetryAfter.parse(" 1.5 ", now: now) == .delay(.milliseconds(1500)))
        #expect(RetryAfter.parse("Sun, 06 Nov 1994 08:50:37 GMT", now: now) == .delay(.seconds(60)))
        #expect(RetryAfter.parse("Sun, 06 Nov 1994 08:40:37 GMT", now: now) == .delay(.zero), "a date in the past means now")
        for bad in ["nan", "NaN", "inf", "-inf", "1e20", "-5", "86401", "", "Sun, 06 Nov 1994 25:00:00 GMT", "Sunday", String(repeating: "9", count: 400)] {
            guard case .unusable = RetryAfter.parse(bad, now: now) else {
                Issue.record("\(bad.prefix(20).debugDescription) was taken as a delay")
                continue
            }
        }
    }

    /// The backend stored the batch and said so, but the local delete fails
    /// (the store is locked): the batch stays queued, the uploader backs
    /// off instead of resending at once, and the resend is absorbed by its
    /// idempotency key.
    @Test func aFailedLocalAcknowledgeBacksOffAndResendsUnderTheSameKey() async throws {
        let rig = try await UploadRig()
        defer { rig.stop() }
        let path = rig.directory.file("data/waymark.db")
        let quickTimeout = try Database(path: path, migrations: UploadRig.migrations,
                                        busyTimeout: .milliseconds(50))
        let outbox = Outbox(database: quickTimeout)
        try rig.record(30)
        // The first POST takes 0.4 s; meanwhile another writer holds the store for 1.5 s.
        try rig.backend.setFaults(#"{"queue":[{"kind":"delay","delay":0.4}]}"#)
        let blocker = try Database(path: path, migrations: UploadRig.migrations)
        let released = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            _ = try? blocker.write { _ in usleep(1_500_000) }
            released.signal()
        }
        var options = UploadRig.quick
        options.retryBase = .milliseconds(400)
        options.retryCap = .milliseconds(400)
        let session = rig.session
        let uploader = Uploader(outbox: outbox, deviceID: UploadRig.deviceID, authorization: SessionUploadAuthorization(session), baseURL: { await session.apiBaseURL },
                                options: options, clock: ContinuousClock(), now: { Date().timeIntervalSince1970 })
        let running = Task { await uploader.run() }
        uploader.flush()
        let events = try await UploadRig.untilSettled(uploader.events)
        running.cancel()
        await running.value
        released.wait()
        // The busy store may also have kept the cap from being checked: that is reported, and is not a send.
        let sends = events.filter { if case .capNotEnforced = $0 { false } else { true } }
        #expect(sends.first.map { if case .retrying(nil, _) = $0 { true } else { false } } == true, "\(events)")
        #expect(events.contains(.uploaded(first: 1, last: 30)))
        let summary = try rig.backend.summary()
        #expect(summary.stored == 30 && summary.conflicts == 0 && summary.duplicates >= 30)
        let backoffs = events.filter { if case .retrying(nil, _) = $0 { true } else { false } }.count
        #expect(backoffs == summary.posts - 1, "every resend waited for a backoff (\(summary.posts) posts)")
        #expect(try outbox.status().depth == 0)
    }
}

extension UploaderTests {
    /// A stored account whose JSON no longer decodes: the samples wait, and
    /// the reason names the fix; they never go to the configured base URL,
    /// which may be another fleet's.
    @Test func anAccountThatNoLongerReadsHoldsTheSamplesBackAndSaysWhy() async throws {
        let rig = try await UploadRig()
        defer { rig.stop() }
        try rig.record(20)
        try rig.database.write { try $0.run(#"UPDATE session SET account = '{"user_id": 7'"#) }
        do {
            _ = try await rig.session.uploadBaseURL()
            Issue.record("an unreadable account gave a base URL")
        } catch {
            #expect("\(error)".contains("run waymark login --force"), "\(error)")
        }
        let uploader = rig.uploader(clock: ContinuousClock())
        let events = uploader.events
        let running = Task { await uploader.run() }
        uploader.flush()
        try await withDeadline(.seconds(30), "the upload held back") {
            for await event in events { if case .retrying(nil, _) = event { return } }
        }
        running.cancel()
        await running.value
        #expect(try rig.backend.summary().stored == 0)
        #expect(try rig.outbox.status().depth == 20)
    }
}
