import Config
import Foundation
import Peers
import Session
import Storage
import Telemetry
import Uplink
import Upload
import Vocabulary

/// The upload queue: samples committed per second against the sqlite3 CLI
/// running the same inserts, and samples uploaded per second (gzip'd) to the
/// loopback ingest server, which is also the time to flush a backlog.
struct UploadBench {
    var quick: Bool

    func run(into report: inout BenchReport) async throws {
        let directory = try TemporaryDirectory("waymark-bench-upload")
        defer { directory.remove() }
        try committed(into: &report, directory)
        try await uploaded(into: &report, directory)
    }

    static func samples(_ count: Int, from start: Int = 0) -> [Sample] {
        (start..<start + count).map { n in
            var fix = Fix()
            (fix.mode, fix.lat, fix.lon, fix.altMSL, fix.speed, fix.track) = (3, 48.21755833, 8.414495 + Double(n) * 1e-7, 765.8, 13.9, 271.5)
            return Sample(time: 1_796_000_000 + Double(n) * 0.1, tripID: "trip-1", payload: .fix(fix))
        }
    }

    private func committed(into report: inout BenchReport, _ directory: TemporaryDirectory) throws {
        let total = quick ? 20_000 : 200_000
        let perTransaction = 1000
        let database = try Database(path: directory.file("outbox.db"), migrations: Migration.numbered([Outbox.schema] + Outbox.changes))
        let outbox = Outbox(database: database)
        let batches = stride(from: 0, to: total, by: perTransaction).map { Self.samples(perTransaction, from: $0) }
        let ours = try measure { for batch in batches { try outbox.append(batch) } }

        var sql = "PRAGMA journal_mode=WAL;\nPRAGMA synchronous=FULL;\n\(([Outbox.schema] + Outbox.changes).joined(separator: "\n"))\n"
        for batch in batches {
            sql += "BEGIN;\n"
            for sample in batch {
                let queued = QueuedSample(seq: 0, sample: sample)
                sql += "INSERT INTO outbox (time, trip_id, kind, fields, bytes, time_source) VALUES (\(sample.time), 'trip-1', 'fix', '\(queued.fields)', \(queued.bytes), 'ntp');\n"
            }
            sql += "COMMIT;\n"
        }
        let script = directory.file("outbox.sql")
        try sql.write(toFile: script, atomically: true, encoding: .utf8)
        let cli = try measure {
            let process = try ChildProcess("sqlite3", [directory.file("cli.db"), ".read \(script)"], aptPackage: "sqlite3", logPath: directory.file("sqlite3.log"))
            guard try process.wait(timeout: 600) == 0 else { throw PeerError.startFailed("sqlite3", output: process.output) }
        }
        report.add("outbox.commit", Double(total) / ours, unit: "samples/s", baseline: Double(total) / cli, baselineName: "sqlite3 CLI",
                   note: "\(perTransaction) samples per transaction, WAL + synchronous=FULL, outbox schema")
    }

    private func uploaded(into report: inout BenchReport, _ directory: TemporaryDirectory) async throws {
        let total = quick ? 100_000 : 1_000_000
        let provider = try Glewlwyd(directory: directory)
        defer { provider.stop() }
        let backend = try IngestServer(directory: directory)
        defer { backend.stop() }
        let database = try Database(path: directory.file("upload.db"), migrations: Migration.numbered([SessionStore.schema] + SessionStore.changes + [Outbox.schema] + Outbox.changes))
        let session = Glewlwyd.sessionManager(issuer: provider.issuer, backend: backend.baseURL, database: database)
        _ = try await session.loginWithPassword(username: Glewlwyd.username, password: Glewlwyd.password)
        let outbox = Outbox(database: database)
        for start in stride(from: 0, to: total, by: 10_000) { try outbox.append(Self.samples(10_000, from: start)) }

        var options = Configuration().upload.options
        options.batchCount = 5000
        options.batchBytes = 2 << 20
        let uploader = Uploader(outbox: outbox, deviceID: "gw-bench", authorization: SessionUploadAuthorization(session), baseURL: { await session.apiBaseURL },
                                options: options, clock: ContinuousClock(), now: { Date().timeIntervalSince1970 })
        let running = Task { await uploader.run() }
        let seconds = await measure {
            uploader.flush()
            for await event in uploader.events where event == .drained { break }
        }
        running.cancel()
        await running.value
        let stored = try backend.summary().stored
        let sample = Batch(samples: Self.samples(2000).enumerated().map { QueuedSample(seq: Int64($0.offset + 1), sample: $0.element) })
        let raw = sample.json(deviceID: "gw-bench")
        let ratio = Double(raw.count) / Double(Gzip.compress(raw).count)
        report.add("upload.samples", Double(stored) / seconds, unit: "samples/s",
                   note: "\(stored) of \(total) to the loopback ingest server (Python), gzip \(String(format: "%.1f", ratio)):1, 5000 per request ([Upload] BatchSize = 5000, BatchBytes = 2M)")
        report.add("upload.backlog", seconds, unit: "s", note: "time to flush a \(total)-sample backlog")
    }
}
