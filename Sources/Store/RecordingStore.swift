package import Basics
import FoundationEssentials
import Logging
package import Storage
package import Telemetry
package import Vocabulary

/// What recording keeps in the store: the intended state, the heartbeat
/// (the last time telemetry was collected, so a restart can see how long the
/// process was dead) and the trips.
package struct RecordingStore: Sendable {
    package let database: Database

    package init(database: Database) { self.database = database }

    package static let schema = """
        CREATE TABLE trip (
            id TEXT PRIMARY KEY,
            start REAL NOT NULL,
            end REAL,
            end_reason TEXT
        );
        """

    /// Each trip's positions, kept for `waymark export` after the samples
    /// themselves have been uploaded and deleted.
    package static let pointSchema = """
        CREATE TABLE trip_point (
            trip_id TEXT NOT NULL,
            time REAL NOT NULL,
            lat REAL NOT NULL,
            lon REAL NOT NULL,
            alt REAL
        );
        CREATE INDEX trip_point_trip ON trip_point (trip_id, time);
        """

    /// The trip report's timeline, and each trip's sample count and
    /// sequence range (to tell queued, acknowledged and dead-lettered apart).
    package static let readingSchema = """
        CREATE TABLE trip_reading (
            trip_id TEXT NOT NULL,
            time REAL NOT NULL,
            source TEXT NOT NULL,     -- 'beacon' or a sensor's pairing id
            quantity TEXT NOT NULL,   -- 'rssi', 'temperature', …
            value REAL NOT NULL
        );
        CREATE INDEX trip_reading_trip ON trip_reading (trip_id, time);
        ALTER TABLE trip ADD COLUMN samples INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE trip ADD COLUMN first_seq INTEGER;
        ALTER TABLE trip ADD COLUMN last_seq INTEGER;
        ALTER TABLE trip_point ADD COLUMN time_source TEXT;
        """

    /// The receiver's speed and fix quality at each position, and each
    /// position's and reading's sample, to tell the queued from the acknowledged.
    package static let qualitySchema = """
        ALTER TABLE trip_point ADD COLUMN speed REAL;
        ALTER TABLE trip_point ADD COLUMN satellites INTEGER;
        ALTER TABLE trip_point ADD COLUMN eph REAL;
        ALTER TABLE trip_point ADD COLUMN seq INTEGER;
        ALTER TABLE trip_reading ADD COLUMN seq INTEGER;
        """

    /// Times taken before the clock was trusted keep their boot and
    /// boot-clock reading, so that they move with the samples once it is
    /// (`restamp`); both are cleared then. A point dated by the receiver's
    /// own time has a boot but no reading: only its source changes.
    package static let bootSchema = """
        ALTER TABLE trip ADD COLUMN start_boot_id TEXT;
        ALTER TABLE trip ADD COLUMN start_boot REAL;
        ALTER TABLE trip ADD COLUMN end_boot_id TEXT;
        ALTER TABLE trip ADD COLUMN end_boot REAL;
        ALTER TABLE trip_point ADD COLUMN boot_id TEXT;
        ALTER TABLE trip_point ADD COLUMN boot_time REAL;
        ALTER TABLE trip_reading ADD COLUMN boot_id TEXT;
        ALTER TABLE trip_reading ADD COLUMN boot_time REAL;
        """

    /// Samples just queued as `seqs`, in order: their positions and
    /// readings join their trips' timelines, on `connection`, inside the
    /// transaction that queued them. In a savepoint of its own: timelines
    /// that cannot be written are undone alone, and the samples stay.
    package func track(_ samples: [Sample], seqs: ClosedRange<Int64>, on connection: Connection) {
        do {
            try connection.run("SAVEPOINT track")
            do {
                try addTimelines(samples, seqs: seqs, on: connection)
                try connection.run("RELEASE track")
            } catch {
                try connection.run("ROLLBACK TO track")
                try connection.run("RELEASE track")
                throw error
            }
        } catch {
            // Undone (or never begun): the samples stay queued; the report lacks these points.
            Log.warning("recording: the trip timelines of samples \(seqs) were not written (\(error)); the samples are queued, the trip report lacks them")
        }
    }

    private func addTimelines(_ samples: [Sample], seqs: ClosedRange<Int64>, on connection: Connection) throws {
        var counts: [TripID: (count: Int, first: Int64, last: Int64)] = [:]
        for (sample, seq) in zip(samples, seqs) {
            guard let tripID = sample.tripID else { continue }
            let known = counts[tripID] ?? (0, seq, seq)
            counts[tripID] = (known.count + 1, known.first, seq)
        }
        guard !counts.isEmpty else { return }
        let point = try connection.prepare("""
            INSERT INTO trip_point (trip_id, time, lat, lon, alt, time_source, boot_id, boot_time, speed, satellites, eph, seq) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        let reading = try connection.prepare("INSERT INTO trip_reading (trip_id, time, source, quantity, value, boot_id, boot_time, seq) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")
        for (sample, seq) in zip(samples, seqs) {
            let boot = sample.timeSource == .unsynced ? sample.boot : nil
            let bootID = boot.map { SQLValue.text($0.id) } ?? .null
            if let p = TripPoint(sample) {
                // Dated by the sample's stamp, it moves with it; by the receiver's own time, it stays.
                let bootTime = boot.flatMap { p.time == sample.time ? SQLValue.real($0.time) : nil } ?? .null
                try point.run([.text(p.tripID), .real(p.time), .real(p.lat), .real(p.lon), p.alt.map { .real($0) } ?? .null, .text(sample.timeSource.rawValue),
                               bootID, bootTime] + p.quality + [.integer(seq)])
            }
            for r in TripReading.readings(of: sample) {
                try reading.run([.text(r.tripID), .real(r.time), .text(r.source), .text(r.quantity), .real(r.value), bootID, boot.map { .real($0.time) } ?? .null,
                                 .integer(seq)])
            }
        }
        for (tripID, count) in counts {
            try connection.run("UPDATE trip SET samples = samples + ?, first_seq = coalesce(first_seq, ?), last_seq = ? WHERE id = ?",
                               [.integer(Int64(count.count)), .integer(count.first), .integer(count.last), .text(tripID)])
        }
    }

    package func readings(of tripID: TripID) throws -> [TripReading] {
        try database.read { connection in
            try connection.rows("SELECT trip_id, time, source, quantity, value, seq FROM trip_reading WHERE trip_id = ? ORDER BY time", [.text(tripID)]) { row in
                TripReading(tripID: TripID(rawValue: row.text(0) ?? ""), time: row.real(1), source: row.text(2) ?? "", quantity: row.text(3) ?? "", value: row.real(4),
                            seq: row.isNull(5) ? nil : row.integer(5))
            }
        }
    }

    package func addPoints(_ points: [TripPoint]) throws {
        guard !points.isEmpty else { return }
        try database.write { connection in
            let insert = try connection.prepare("INSERT INTO trip_point (trip_id, time, lat, lon, alt, speed, satellites, eph) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")
            for point in points {
                try insert.run([.text(point.tripID), .real(point.time), .real(point.lat), .real(point.lon), point.alt.map { .real($0) } ?? .null] + point.quality)
            }
        }
    }

    package func points(of tripID: TripID) throws -> [TripPoint] {
        try database.read { connection in
            try connection.rows("SELECT trip_id, time, lat, lon, alt, speed, satellites, eph, seq FROM trip_point WHERE trip_id = ? ORDER BY time", [.text(tripID)]) { row in
                TripPoint(tripID: TripID(rawValue: row.text(0) ?? ""), time: row.real(1), lat: row.real(2), lon: row.real(3), alt: row.isNull(4) ? nil : row.real(4),
                          speed: row.isNull(5) ? nil : row.real(5), satellites: row.isNull(6) ? nil : Int(row.integer(6)), eph: row.isNull(7) ? nil : row.real(7),
                          seq: row.isNull(8) ? nil : row.integer(8))
            }
        }
    }

    package var intent: RecordingIntent {
        get throws {
            try database.read { try $0.scalar("SELECT value FROM meta WHERE key = 'recording_intent'")?.text }
                .flatMap(RecordingIntent.init(rawValue:)) ?? .disarmed
        }
    }

    package func setIntent(_ intent: RecordingIntent) throws {
        try set("recording_intent", intent.rawValue)
    }

    package var heartbeat: Heartbeat? {
        get throws { try database.read { try $0.scalar("SELECT value FROM meta WHERE key = 'heartbeat'")?.text }.flatMap(Heartbeat.init(stored:)) }
    }

    package func setHeartbeat(_ heartbeat: Heartbeat) throws {
        try set("heartbeat", heartbeat.stored)
    }

    /// `unsynced`: the boot and boot-clock reading of a start timed before
    /// the clock was trusted.
    package func tripStarted(_ id: TripID, at time: Double, unsynced: (id: String, time: Double)? = nil) throws {
        try database.write { try tripStarted(id, at: time, unsynced: unsynced, on: $0) }
    }

    package func tripEnded(_ id: TripID, at time: Double, reason: String, unsynced: (id: String, time: Double)? = nil) throws {
        try database.write { try tripEnded(id, at: time, reason: reason, unsynced: unsynced, on: $0) }
    }

    /// A trip's row, in the transaction on `connection` (the one that
    /// commits its first samples): both are stored, or neither.
    package func tripStarted(_ id: TripID, at time: Double, unsynced: (id: String, time: Double)?, on connection: Connection) throws {
        try connection.run("INSERT OR IGNORE INTO trip (id, start, start_boot_id, start_boot) VALUES (?, ?, ?, ?)",
                           [.text(id), .real(time), unsynced.map { .text($0.id) } ?? .null, unsynced.map { .real($0.time) } ?? .null])
    }

    package func tripEnded(_ id: TripID, at time: Double, reason: String, unsynced: (id: String, time: Double)?, on connection: Connection) throws {
        try connection.run("UPDATE trip SET end = ?, end_reason = ?, end_boot_id = ?, end_boot = ? WHERE id = ?",
                           [.real(time), .text(reason), unsynced.map { .text($0.id) } ?? .null, unsynced.map { .real($0.time) } ?? .null, .text(id)])
    }

    /// The clock is trusted now: trips, timelines and events timed before
    /// it, in boot `bootID`, move to their boot-clock reading + `offset`, as
    /// the outbox's samples do (`Outbox.restamp`), on `connection`. A trip
    /// event's `at` moves with its time, so the log agrees with the trip's row.
    package func restamp(bootID: String, offset: Double, source: TimeSource, on connection: Connection) throws {
        let (offset, boot) = (SQLValue.real(offset), SQLValue.text(bootID))
        try connection.run("UPDATE trip SET start = start_boot + ?, start_boot = NULL, start_boot_id = NULL WHERE start_boot_id = ? AND start_boot IS NOT NULL",
                           [offset, boot])
        try connection.run("UPDATE trip SET end = end_boot + ?, end_boot = NULL, end_boot_id = NULL WHERE end_boot_id = ? AND end_boot IS NOT NULL",
                           [offset, boot])
        try connection.run("""
            UPDATE trip_point SET time = coalesce(boot_time + ?, time), time_source = ?, boot_time = NULL, boot_id = NULL WHERE boot_id = ?
            """, [offset, .text(source.rawValue), boot])
        try connection.run("UPDATE trip_reading SET time = boot_time + ?, boot_time = NULL, boot_id = NULL WHERE boot_id = ? AND boot_time IS NOT NULL",
                           [offset, boot])
        try connection.run("""
            UPDATE event SET time = boot_time + ?1,
                detail = CASE WHEN json_valid(detail) AND json_type(detail, '$.at') = 'text'
                              THEN json_set(detail, '$.at', strftime('%Y-%m-%dT%H:%M:%fZ', boot_time + ?1, 'unixepoch')) ELSE detail END,
                boot_time = NULL, boot_id = NULL
            WHERE boot_id = ?2 AND boot_time IS NOT NULL
            """, [offset, boot])
    }

    package func trips() throws -> [StoredTrip] {
        try database.read { connection in
            try connection.rows("SELECT id, start, end, end_reason FROM trip ORDER BY start") { row in
                StoredTrip(id: TripID(rawValue: row.text(0) ?? ""), start: Date(timeIntervalSince1970: row.real(1)),
                           end: row.isNull(2) ? nil : Date(timeIntervalSince1970: row.real(2)), endReason: row.text(3))
            }
        }.map { trip in
            var trip = trip
            let points = try self.points(of: trip.id)
            trip.points = points.count
            trip.distanceMeters = (points.pathLength * 10).rounded() / 10
            return trip
        }
    }

    private func set(_ key: String, _ value: String) throws {
        try database.write { try $0.run("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", [.text(key), .text(value)]) }
    }
}
