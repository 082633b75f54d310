import Foundation
import PeerHarness
import Session
import Storage
import Telemetry
import Uplink
import Upload
import Vocabulary

/// glewlwyd for the bearer tokens, the ingest server, and an uploader over a
/// fresh store, logged in.
struct UploadRig {
    let directory: TemporaryDirectory
    let provider: Glewlwyd
    let backend: IngestServer
    let database: Database
    let session: SessionManager
    let outbox: Outbox
    static let deviceID = "gw-test-1"

    /// A 3D fix near the gpsd sample logs' start, its satellites counting `n`.
    static func fix(_ n: Int) -> Fix {
        var fix = Fix()
        (fix.mode, fix.lat, fix.lon, fix.satellitesUsed) = (3, 48.217558333, 8.414495, n)
        return fix
    }
    static let migrations = Migration.numbered([SessionStore.schema] + SessionStore.changes + [Outbox.schema] + Outbox.changes)

    init() async throws {
        directory = try TemporaryDirectory("waymark-upload")
        provider = try Glewlwyd(directory: directory)
        backend = try IngestServer(directory: directory)
        database = try Database(path: directory.file("data/waymark.db"),
                                migrations: Self.migrations)
        session = Glewlwyd.sessionManager(issuer: provider.issuer, backend: backend.baseURL, database: database)
        _ = try await session.loginWithPassword(username: Glewlwyd.username, password: Glewlwyd.password)
        outbox = Outbox(database: database)
    }

    func uploader<C: Clock>(_ options: UploadOptions = Self.quick, clock: C) -> Uploader<C> where C.Duration == Duration {
        let session = session
        return Uploader(outbox: outbox, deviceID: Self.deviceID, authorization: SessionUploadAuthorization(session), baseURL: { try await session.uploadBaseURL() },
                        options: options, clock: clock, now: { Date().timeIntervalSince1970 })
    }

    /// Short backoff in real time, small batches.
    static var quick: UploadOptions {
        var options = UploadOptions(batchCount: 100, batchBytes: 512 << 10, batchAge: .seconds(10), retryCap: .milliseconds(200),
                                    maxQueuedBytes: 256 << 20)
        options.retryBase = .milliseconds(10)
        options.requestTimeout = .seconds(5)
        return options
    }

    @discardableResult
    func record(_ count: Int, startingAt start: Double = 1_796_000_000) throws -> ClosedRange<Int64>? {
        try outbox.append((0..<count).map { index in
            Sample(time: start + Double(index) * 0.1, tripID: "trip-1", payload: .fix(Self.fix(index)))
        })
    }

    /// Events until the queue is drained (or the uploader waits for a login).
    static func untilSettled(_ events: AsyncStream<UploadEvent>, within limit: Duration = .seconds(60)) async throws -> [UploadEvent] {
        try await withDeadline(limit, "the upload to settle") {
            var seen: [UploadEvent] = []
            for await event in events {
                seen.append(event)
                if event == .drained || event == .waitingForLogin { return seen }
            }
            return seen
        }
    }

    func stop() {
        provider.stop()
        backend.stop()
        directory.remove()
    }
}
