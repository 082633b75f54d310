public import FoundationEssentials
import Session
public import Storage
import Telemetry
import Upload
public import Vocabulary

/// The gateway's database: schema, device identity and the event log.
public struct GatewayStore: Sendable {
    public let database: Database

    /// The schema, forward only. Later versions append; none is ever edited
    /// (the rule, with when a step is `compatible`, is in Storage's `Migration`).
    package static let migrations = [
        Migration(1, """
            CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
            CREATE TABLE event (
                id INTEGER PRIMARY KEY,
                time REAL NOT NULL,      -- seconds since 1970, UTC
                kind TEXT NOT NULL,
                detail TEXT NOT NULL     -- JSON
            );
            """),
        Migration(2, """
            CREATE TABLE pairing (
                id INTEGER PRIMARY KEY,
                identity TEXT NOT NULL UNIQUE,   -- e.g. ibeacon:UUID:MAJOR:MINOR, address:AA:BB:…
                role TEXT NOT NULL CHECK (role IN ('vehicle', 'sensor')),
                label TEXT NOT NULL,
                bindkey TEXT,                    -- hex, BTHome encryption key
                created REAL NOT NULL
            );
            """),
        Migration(3, SessionStore.schema),
        Migration(4, Outbox.schema),
        Migration(5, RecordingStore.schema),
        Migration(6, RecordingStore.pointSchema),
        Migration(7, SessionStore.changes[0]),
        Migration(8, Outbox.changes[0]),
        Migration(9, Outbox.changes[1]),
        // New tables and columns an older Waymark ignores, with defaults it does not contradict.
        Migration(10, RecordingStore.readingSchema, compatible: true),
        Migration(11, RecordingStore.bootSchema, compatible: true),
        Migration(12, eventBootSchema, compatible: true),
        Migration(13, RecordingStore.qualitySchema, compatible: true),
    ]

    /// An event stamped before the clock could be trusted keeps its boot
    /// time, so that it moves with the trips and samples of its boot when
    /// the first trusted time re-stamps them.
    package static let eventBootSchema = """
        ALTER TABLE event ADD COLUMN boot_id TEXT;
        ALTER TABLE event ADD COLUMN boot_time REAL;
        """

    /// Opens the store at `path`; with `create`, makes it (and its
    /// device id) if needed. Without, nothing is created or moved aside.
    public init(path: String, create: Bool = true) throws {
        database = try Database(path: path, migrations: Self.migrations, create: create)
        guard create else { return }
        try database.write { connection in
            try connection.run("INSERT OR IGNORE INTO meta (key, value) VALUES ('device_id', ?)", [.text(UUID().uuidString.lowercased())])
        }
    }

    /// Deletes every record a remote wipe must remove: the session, pairings,
    /// events, queued samples. The device id stays, so the backend still
    /// knows the gateway.
    /// Everything committed moved from the write-ahead log into the database
    /// file: before a suspend, and at the daemon's stop.
    public func checkpoint() throws(StorageError) { try database.checkpoint() }

    public func eraseAll() throws {
        try database.write { connection in
            for table in ["session", "remote_settings", "pairing", "event", "outbox", "dead_letter", "dropped_range", "trip", "trip_point", "trip_reading"] {
                try connection.run("DELETE FROM \(table)")
            }
        }
    }

    /// This gateway's id, created once with the store and never changed.
    public var deviceID: String {
        get throws { try database.read { try $0.scalar("SELECT value FROM meta WHERE key = 'device_id'")?.text ?? "" } }
    }

    /// Appends an event to the log; `unsynced` (the boot and its clock's
    /// reading) where the time is not to be trusted yet.
    public func record(_ event: Event, at time: Date = Date(), unsynced: (id: String, time: Double)? = nil) throws {
        try database.write { connection in
            try connection.run("INSERT INTO event (time, kind, detail, boot_id, boot_time) VALUES (?, ?, ?, ?, ?)",
                               [.real(time.timeIntervalSince1970), .text(event.kind.rawValue), .text(SampleEncoder.object(event)),
                                unsynced.map { .text($0.id) } ?? .null, unsynced.map { .real($0.time) } ?? .null])
        }
    }

    /// A real write (the time of this check, in `meta`), then SQLite's
    /// quick check: nil and "ok" for a store that takes samples and is intact.
    public func probe(at time: Date = Date()) -> (writeProblem: String?, integrity: String) {
        var problem: String?
        do {
            try database.write { connection in
                try connection.run("INSERT INTO meta (key, value) VALUES ('health_probe', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                                   [.text(String(time.timeIntervalSince1970))])
            }
        } catch {
            problem = "\(error)"
        }
        let integrity: String
        do {
            integrity = try database.read { try $0.scalar("PRAGMA quick_check")?.text } ?? "no answer"
        } catch {
            integrity = "\(error)"
        }
        return (problem, integrity)
    }

    /// When the radio was last reported as needing a power cycle, unless
    /// adverts came back since (`radioRecovered`).
    public func radioNeedsPowerCycle() throws -> Date? {
        guard let dead = try lastEvent(.radioNeedsPowerCycle) else { return nil }
        if let back = try lastEvent(.radioRecovered), back.id > dead.id { return nil }
        return dead.time
    }

    /// The events between two wall-clock times, oldest first.
    public func events(from: Double, to: Double) throws -> [StoredEvent] {
        try database.read { connection in
            try connection.rows("SELECT id, time, kind, detail FROM event WHERE time >= ? AND time <= ? ORDER BY time, id", [.real(from), .real(to)]) { row in
                StoredEvent(id: row.integer(0), time: Date(timeIntervalSince1970: row.real(1)), kind: row.text(2) ?? "", detail: row.text(3) ?? "{}")
            }
        }
    }

    /// The newest event of `kind`, if any.
    public func lastEvent(_ kind: EventKind) throws -> StoredEvent? {
        try database.read { connection in
            try connection.rows("SELECT id, time, kind, detail FROM event WHERE kind = ? ORDER BY id DESC LIMIT 1", [.text(kind.rawValue)]) { row in
                StoredEvent(id: row.integer(0), time: Date(timeIntervalSince1970: row.real(1)), kind: row.text(2) ?? "", detail: row.text(3) ?? "{}")
            }.first
        }
    }
}

extension JSONEncoder {
    /// Sorted keys, so stored and printed JSON is stable.
    package static var sorted: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }
}
