public import Basics
import Logging
public import Storage
public import Telemetry
import Vocabulary

/// The durable upload queue. A sample is "recorded" once `append` returns:
/// its transaction is committed (WAL, synchronous=FULL). Rows leave only
/// when every configured sink acknowledged them (each keeps its own cursor,
/// the last sequence number it has), when a permanent refusal moves them to
/// `dead_letter`, or when the size cap drops the oldest, which is recorded in
/// `dropped_range`. Sequence numbers are never reused (AUTOINCREMENT).
public struct Outbox: Sendable {
    public let database: Database
    /// The sinks that must each have a sample before it leaves.
    public let sinks: [UploadSink]

    public static let schema = """
        CREATE TABLE outbox (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            time REAL NOT NULL,
            trip_id TEXT,
            kind TEXT NOT NULL,
            fields TEXT NOT NULL,
            bytes INTEGER NOT NULL
        );
        CREATE TABLE dead_letter (
            id INTEGER PRIMARY KEY,
            first_seq INTEGER NOT NULL,
            last_seq INTEGER NOT NULL,
            status INTEGER NOT NULL,
            reason TEXT NOT NULL,
            samples TEXT NOT NULL,   -- the batch's JSON array, as it was sent
            time REAL NOT NULL
        );
        CREATE TABLE dropped_range (
            id INTEGER PRIMARY KEY,
            first_seq INTEGER NOT NULL,
            last_seq INTEGER NOT NULL,
            first_time REAL NOT NULL,
            last_time REAL NOT NULL,
            count INTEGER NOT NULL,
            time REAL NOT NULL
        );
        CREATE TABLE upload_state (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        """

    /// The later steps of the outbox's tables, in order, after `schema`.
    public static let changes = [
        // Time quality: rows from before it are called unsynced, since
        // nothing is known of their clock.
        """
        ALTER TABLE outbox ADD COLUMN time_source TEXT NOT NULL DEFAULT 'unsynced';
        ALTER TABLE outbox ADD COLUMN boot_id TEXT;
        ALTER TABLE outbox ADD COLUMN boot_time REAL;
        """,
        // A cursor per sink: the last sequence number it acknowledged.
        "CREATE TABLE sink_cursor (sink TEXT PRIMARY KEY, seq INTEGER NOT NULL);",
    ]

    public init(database: Database, sinks: [UploadSink] = [.http]) {
        self.database = database
        self.sinks = sinks.isEmpty ? [.http] : sinks
    }

    /// Commits `samples` in one transaction and returns their sequence numbers.
    /// `alongside` runs inside the same transaction once the rows are in,
    /// with their sequence numbers: what belongs with them costs no second
    /// commit (and no second fsync).
    @discardableResult
    public func append(_ samples: [Sample], alongside: ((Connection, ClosedRange<Int64>) throws -> Void)? = nil) throws -> ClosedRange<Int64>? {
        guard !samples.isEmpty else { return nil }
        let seqs = try database.write { connection in
            let insert = try connection.prepare("""
                INSERT INTO outbox (time, trip_id, kind, fields, bytes, time_source, boot_id, boot_time) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """)
            var first: Int64 = 0
            for (index, sample) in samples.enumerated() {
                let queued = QueuedSample(seq: 0, sample: sample)
                try insert.run([.real(sample.time), sample.tripID.map { .text($0.rawValue) } ?? .null, .text(queued.kind.rawValue),
                                .text(queued.fields), .integer(Int64(queued.bytes)), .text(sample.timeSource.rawValue),
                                sample.boot.map { .text($0.id) } ?? .null, sample.boot.map { .real($0.time) } ?? .null])
                if index == 0 { first = connection.lastInsertRowID }
            }
            let seqs = first...connection.lastInsertRowID
            try alongside?(connection, seqs)
            return seqs
        }
        // The record a power-cut test holds the store and the ingest to.
        Log.debug("outbox: committed seq \(seqs.lowerBound)-\(seqs.upperBound)")
        return seqs
    }

    /// The oldest samples `sink` does not have yet (nor any up to `after`,
    /// which it has in flight), up to `count` of them and `bytes` of JSON.
    ///
    /// They are handed out: from now on `restamp` leaves them as they are,
    /// so a resend (after a lost acknowledgement, a restart or a power cut)
    /// carries the same sample under the same seq. Only a batch with
    /// unsynced samples not handed out before needs that written down; it
    /// is then read again and marked in one write transaction, so a
    /// re-stamp comes wholly before or after.
    public func oldest(count: Int, bytes: Int, for sink: UploadSink = .http, after: Int64 = 0) throws -> Batch? {
        let (read, handedOut) = try database.read { connection in
            (try Self.oldest(count: count, bytes: bytes, for: sink, after: after, on: connection), try Self.handedOut(on: connection))
        }
        // Only unsynced samples can be re-stamped; those handed out before are marked already.
        guard let batch = read, batch.lastSeq > handedOut, batch.samples.contains(where: { $0.timeSource == .unsynced }) else { return read }
        return try database.write { connection in
            guard let batch = try Self.oldest(count: count, bytes: bytes, for: sink, after: after, on: connection) else { return nil }
            try connection.run("""
                INSERT INTO upload_state (key, value) VALUES ('handed_out', ?)
                ON CONFLICT (key) DO UPDATE SET value = max(CAST(value AS INTEGER), CAST(excluded.value AS INTEGER))
                """, [.text(String(batch.lastSeq))])
            return batch
        }
    }

    private static func handedOut(on connection: Connection) throws -> Int64 {
        try connection.scalar("SELECT CAST(value AS INTEGER) FROM upload_state WHERE key = 'handed_out'")?.integer ?? 0
    }

    private static func oldest(count: Int, bytes: Int, for sink: UploadSink, after: Int64, on connection: Connection) throws -> Batch? {
        let rows = try connection.rows("""
            SELECT seq, time, trip_id, kind, fields, bytes, time_source FROM outbox
            WHERE seq > max(coalesce((SELECT seq FROM sink_cursor WHERE sink = ?), 0), ?) ORDER BY seq LIMIT ?
            """, [.text(sink.rawValue), .integer(after), .integer(Int64(count))]) { row in
            QueuedSample(seq: row.integer(0), time: row.real(1), tripID: row.text(2).map(TripID.init(rawValue:)),
                         kind: SampleKind(rawValue: row.text(3) ?? "") ?? .event, fields: row.text(4) ?? "",
                         timeSource: row.text(6).flatMap(TimeSource.init(rawValue:)) ?? .unsynced, bytes: Int(row.integer(5)))
        }
        var total = 0
        var taken: [QueuedSample] = []
        for row in rows {
            if !taken.isEmpty, total + row.bytes > bytes { break }
            taken.append(row)
            total += row.bytes
        }
        return taken.isEmpty ? nil : Batch(samples: taken)
    }

    /// Once the clock is trusted: gives this boot's `unsynced` samples the
    /// wall time of their boot-clock reading (`boot time + offset`), and the
    /// trusted source; those already handed to a sink stay as they were
    /// sent. Returns how many were re-stamped. `alongside` runs in the same
    /// transaction, for what else was timed on the unsynced clock.
    @discardableResult
    public func restamp(bootID: String, offset: Double, source: TimeSource, alongside: (Connection) throws -> Void = { _ in }) throws -> Int {
        try database.write { connection in
            try connection.run("""
                UPDATE outbox SET time = boot_time + ?, time_source = ?
                WHERE time_source = 'unsynced' AND boot_id = ? AND boot_time IS NOT NULL
                  AND seq > coalesce((SELECT CAST(value AS INTEGER) FROM upload_state WHERE key = 'handed_out'), 0)
                """, [.real(offset), .text(source.rawValue), .text(bootID)])
            let count = connection.changes
            try alongside(connection)
            return count
        }
    }

    /// `sink` has an acknowledged batch: its cursor moves past it, and what
    /// every sink has leaves the queue.
    public func acknowledge(_ batch: Batch, by sink: UploadSink = .http, at time: Double) throws {
        try acknowledge(through: batch.lastSeq, by: sink, at: time)
    }

    /// `sink` has everything up to `seq`.
    public func acknowledge(through seq: Int64, by sink: UploadSink, at time: Double) throws {
        try database.write { connection in
            try advance(sink, to: seq, in: connection)
            try connection.run("INSERT OR REPLACE INTO upload_state (key, value) VALUES ('last_success', ?)", [.text(String(time))])
        }
    }

    /// Keeps a batch `sink` refused for good as a dead letter, in one
    /// transaction; that sink is done with it.
    public func deadLetter(_ batch: Batch, by sink: UploadSink = .http, status: Int, reason: String, at time: Double) throws {
        let samples = "[" + batch.samples.map(Batch.object).joined(separator: ",") + "]"
        try database.write { connection in
            try connection.run("""
                INSERT INTO dead_letter (first_seq, last_seq, status, reason, samples, time) VALUES (?, ?, ?, ?, ?, ?)
                """, [.integer(batch.firstSeq), .integer(batch.lastSeq), .integer(Int64(status)), .text(reason), .text(samples), .real(time)])
            try advance(sink, to: batch.lastSeq, in: connection)
        }
    }

    /// Moves `sink`'s cursor to `seq` (never back) and deletes what every
    /// configured sink is past; a sink with no cursor has nothing yet.
    private func advance(_ sink: UploadSink, to seq: Int64, in connection: Connection) throws {
        try connection.run("""
            INSERT INTO sink_cursor (sink, seq) VALUES (?, ?) ON CONFLICT (sink) DO UPDATE SET seq = max(seq, excluded.seq)
            """, [.text(sink.rawValue), .integer(seq)])
        var done = seq
        for other in sinks where other != sink {
            done = min(done, try connection.scalar("SELECT seq FROM sink_cursor WHERE sink = ?", [.text(other.rawValue)])?.integer ?? 0)
        }
        try connection.run("DELETE FROM outbox WHERE seq <= ?", [.integer(done)])
    }

    /// How many queued samples `sink` does not have yet.
    public func pending(for sink: UploadSink) throws -> Int {
        try database.read { connection in
            Int(try connection.scalar("""
                SELECT count(*) FROM outbox WHERE seq > coalesce((SELECT seq FROM sink_cursor WHERE sink = ?), 0)
                """, [.text(sink.rawValue)])?.integer ?? 0)
        }
    }

    /// Puts dead letters back in the queue (with new sequence numbers), for
    /// `waymark queue retry-dead`; returns how many samples.
    public func retryDeadLetters() throws -> Int {
        try database.write { connection in
            let letters = try connection.rows("SELECT id, samples FROM dead_letter ORDER BY id") { ($0.integer(0), $0.text(1) ?? "[]") }
            var count = 0
            for (id, json) in letters {
                for sample in DeadLetterSamples.parse(json) {
                    try connection.run("INSERT INTO outbox (time, trip_id, kind, fields, bytes, time_source) VALUES (?, ?, ?, ?, ?, ?)",
                                       [.real(sample.time), sample.tripID.map { .text($0.rawValue) } ?? .null, .text(sample.kind.rawValue),
                                        .text(sample.fields), .integer(Int64(sample.bytes)), .text(sample.timeSource.rawValue)])
                    count += 1
                }
                try connection.run("DELETE FROM dead_letter WHERE id = ?", [.integer(id)])
            }
            return count
        }
    }

    /// Drops the oldest samples while the queue holds more than `maxRows`
    /// samples or `maxBytes` of JSON, recording exactly which range went.
    /// Also returns how many samples are left, from the same count.
    @discardableResult
    public func enforceCap(maxRows: Int, maxBytes: Int = .max, at time: Double) throws -> (dropped: DroppedRange?, depth: Int) {
        try database.write { connection in
            let (count, bytes) = try connection.rows("SELECT count(*), coalesce(sum(bytes), 0) FROM outbox") {
                (Int($0.integer(0)), Int($0.integer(1)))
            }.first ?? (0, 0)
            var excess = max(0, count - maxRows)
            if bytes > maxBytes {
                // Walk the oldest rows until enough bytes would go.
                var freed = 0, rows = 0, after: Int64 = 0
                while freed < bytes - maxBytes {
                    let chunk = try connection.rows("SELECT seq, bytes FROM outbox WHERE seq > ? ORDER BY seq LIMIT 10000", [.integer(after)]) {
                        ($0.integer(0), Int($0.integer(1)))
                    }
                    guard !chunk.isEmpty else { break }
                    for (seq, size) in chunk where freed < bytes - maxBytes {
                        freed += size
                        rows += 1
                        after = seq
                    }
                    after = max(after, chunk.last?.0 ?? after)
                }
                excess = max(excess, rows)
            }
            guard excess > 0 else { return (nil, count) }
            guard let range = try connection.rows(
                "SELECT min(seq), max(seq), min(time), max(time), count(*) FROM (SELECT seq, time FROM outbox ORDER BY seq LIMIT ?)",
                [.integer(Int64(excess))], { row in
                    DroppedRange(firstSeq: row.integer(0), lastSeq: row.integer(1), firstTime: row.real(2), lastTime: row.real(3), count: Int(row.integer(4)))
                }).first else { return (nil, count) }
            try connection.run("DELETE FROM outbox WHERE seq BETWEEN ? AND ?", [.integer(range.firstSeq), .integer(range.lastSeq)])
            try connection.run("""
                INSERT INTO dropped_range (first_seq, last_seq, first_time, last_time, count, time) VALUES (?, ?, ?, ?, ?, ?)
                """, [.integer(range.firstSeq), .integer(range.lastSeq), .real(range.firstTime), .real(range.lastTime),
                      .integer(Int64(range.count)), .real(time)])
            return (range, count - range.count)
        }
    }

    public func status() throws -> QueueStatus {
        try database.read { connection in
            let summary = try connection.rows("SELECT count(*), min(time), coalesce(sum(bytes), 0) FROM outbox") { row in
                (Int(row.integer(0)), row.isNull(1) ? nil : row.real(1), Int(row.integer(2)))
            }.first ?? (0, nil, 0)
            let dead = Int(try connection.scalar("SELECT count(*) FROM dead_letter")?.integer ?? 0)
            func state(_ key: String) throws -> String? {
                try connection.scalar("SELECT value FROM upload_state WHERE key = ?", [.text(key)])?.text
            }
            return QueueStatus(depth: summary.0, oldest: summary.1, bytes: summary.2, deadLetters: dead,
                               lastSuccess: try state("last_success").flatMap(Double.init), lastError: try state("last_error"))
        }
    }

    func noteError(_ text: String) throws {
        try database.write { connection in
            try connection.run("INSERT OR REPLACE INTO upload_state (key, value) VALUES ('last_error', ?)", [.text(text)])
        }
    }
}
