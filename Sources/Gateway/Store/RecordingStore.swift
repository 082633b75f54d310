import FoundationEssentials
import Recording
import Storage

/// What recording keeps in the store: the intended state, the heartbeat
/// (the last time telemetry was collected, so a restart can see how long the
/// process was dead) and the trips.
struct RecordingStore: Sendable {
    let database: Database

    static let schema = """
        CREATE TABLE trip (
            id TEXT PRIMARY KEY,
            start REAL NOT NULL,
            end REAL,
            end_reason TEXT
        );
        """

    var intent: Reconciler.Intent {
        get throws {
            try database.read { try $0.scalar("SELECT value FROM meta WHERE key = 'recording_intent'")?.text }
                .flatMap(Reconciler.Intent.init(rawValue:)) ?? .disarmed
        }
    }

    func setIntent(_ intent: Reconciler.Intent) throws {
        try set("recording_intent", intent.rawValue)
    }

    var heartbeat: Double? {
        get throws { try database.read { try $0.scalar("SELECT value FROM meta WHERE key = 'heartbeat'")?.text }.flatMap(Double.init) }
    }

    func setHeartbeat(_ time: Double) throws {
        try set("heartbeat", String(time))
    }

    func tripStarted(_ id: String, at time: Double) throws {
        try database.write { try $0.run("INSERT OR IGNORE INTO trip (id, start) VALUES (?, ?)", [.text(id), .real(time)]) }
    }

    func tripEnded(_ id: String, at time: Double, reason: String) throws {
        try database.write { try $0.run("UPDATE trip SET end = ?, end_reason = ? WHERE id = ?", [.real(time), .text(reason), .text(id)]) }
    }

    func trips() throws -> [StoredTrip] {
        try database.read { connection in
            try connection.rows("SELECT id, start, end, end_reason FROM trip ORDER BY start") { row in
                StoredTrip(id: row.text(0) ?? "", start: Date(timeIntervalSince1970: row.real(1)),
                           end: row.isNull(2) ? nil : Date(timeIntervalSince1970: row.real(2)), endReason: row.text(3))
            }
        }
    }

    private func set(_ key: String, _ value: String) throws {
        try database.write { try $0.run("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", [.text(key), .text(value)]) }
    }
}

struct StoredTrip: Sendable, Equatable, Encodable {
    var id: String
    var start: Date
    var end: Date?
    var endReason: String?
}
