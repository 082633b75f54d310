internal import Basics
internal import CSQLite
internal import Glibc
import Synchronization

/// The on-device SQLite store: WAL mode, a deliberate `synchronous` level,
/// forward-only migrations, and an integrity check at open.
///
/// The directory is kept at 0700 and the database at 0600, since the store
/// holds the session's tokens. A file that fails the integrity check is moved
/// aside with a timestamp (see `movedAside`), never overwritten.
public final class Database: Sendable {
    public let path: String
    /// Where a damaged file found at open was moved, if one was.
    public let movedAside: String?
    /// The schema version after migrating.
    public let schemaVersion: Int
    private let connection: Mutex<Connection>

    /// With `create` (the default), a missing directory (but not its
    /// parents) and file are made, and a damaged file is moved aside for a
    /// fresh store. Without it, nothing is created or moved: a missing or
    /// damaged store is an error (`damaged`), for commands that only read.
    public init(
        path: String, migrations: [Migration], synchronous: Synchronous = .full,
        busyTimeout: Duration = .seconds(5), create: Bool = true
    ) throws(StorageError) {
        try Self.validate(migrations)
        let directory = DurableFile.directory(of: path)
        try FileMode.ensureDirectory(directory, mode: 0o700, create: create)
        try FileMode.ensureFile(path, mode: 0o600, create: create)

        var aside: String?
        var opened: Connection
        var version: Int
        do throws(StorageError) {
            if !create, try FileMode.isEmpty(path) { throw .damaged(path: path, reason: "the file is empty") }
            opened = try Self.open(path, synchronous: synchronous, busyTimeout: busyTimeout)
            try Self.checkIntegrity(opened, path: path)
            version = try Self.migrate(opened, migrations, path: path)
        } catch let error where Self.isDamage(error) {
            guard create else {
                if case .sqlite(_, let message, _) = error { throw .damaged(path: path, reason: message) }
                throw error
            }
            aside = try Self.moveAside(path)
            try FileMode.ensureFile(path, mode: 0o600, create: true)
            opened = try Self.open(path, synchronous: synchronous, busyTimeout: busyTimeout)
            version = try Self.migrate(opened, migrations, path: path)
        }
        self.path = path
        self.movedAside = aside
        self.schemaVersion = version
        self.connection = Mutex(opened)
    }

    /// Whether a database exists at `path` (a symbolic link counts, and is
    /// then refused by `init`).
    public static func exists(at path: String) -> Bool { FileMode.exists(path) }

    /// Runs `body` in a write transaction (`BEGIN IMMEDIATE` … `COMMIT`). When
    /// this returns, the changes are durable at the configured synchronous level.
    public func write<T: Sendable>(_ body: (Connection) throws -> T) throws -> T {
        try connection.withLock { (connection: inout Connection) throws -> T in
            try connection.run("BEGIN IMMEDIATE")
            do {
                let result = try body(connection)
                try connection.run("COMMIT")
                return result
            } catch {
                try? connection.run("ROLLBACK")
                throw error
            }
        }
    }

    /// Runs `body` with the connection, outside any explicit transaction.
    public func read<T: Sendable>(_ body: (Connection) throws -> T) rethrows -> T {
        try connection.withLock { (connection: inout Connection) throws -> T in
            try body(connection)
        }
    }

    /// Copies the WAL into the database file (`PRAGMA wal_checkpoint(TRUNCATE)`),
    /// e.g. before system sleep.
    public func checkpoint() throws(StorageError) {
        try connection.withLock { (connection: inout Connection) throws(StorageError) in
            _ = try connection.scalar("PRAGMA wal_checkpoint(TRUNCATE)")
        }
    }

    // MARK: Opening

    private static func open(_ path: String, synchronous: Synchronous, busyTimeout: Duration) throws(StorageError) -> Connection {
        var raw: OpaquePointer?
        let rc = sqlite3_open_v2(path, &raw, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_NOFOLLOW, nil)
        guard let raw else { throw .sqlite(code: rc, message: "cannot allocate a connection", sql: nil) }
        let connection = Connection(raw: raw)
        try connection.check(rc, nil)
        sqlite3_extended_result_codes(raw, 1)
        sqlite3_busy_timeout(raw, Int32(clamping: busyTimeout.components.seconds * 1000))
        let mode = try connection.scalar("PRAGMA journal_mode=WAL")?.text
        guard mode?.lowercased() == "wal" else {
            throw .sqlite(code: SQLITE_ERROR, message: "journal_mode is \(mode ?? "unknown"), not wal", sql: "PRAGMA journal_mode=WAL")
        }
        try connection.executeScript("PRAGMA synchronous=\(synchronous.rawValue); PRAGMA foreign_keys=ON;")
        return connection
    }

    /// `PRAGMA quick_check`: O(N) and enough to catch torn and overwritten pages.
    private static func checkIntegrity(_ connection: Connection, path: String) throws(StorageError) {
        let check = try connection.prepare("PRAGMA quick_check")
        try check.bind([])
        defer { check.reset() }
        var results: [String] = []
        while try check.step() { results.append(Row(statement: check.raw).text(0) ?? "") }
        guard results == ["ok"] else {
            throw .damaged(path: path, reason: "integrity check failed: " + results.prefix(3).joined(separator: "; "))
        }
    }

    private static func isDamage(_ error: StorageError) -> Bool {
        switch error {
        case .damaged: true
        case .sqlite(let code, _, _): code & 0xff == SQLITE_CORRUPT || code & 0xff == SQLITE_NOTADB
        default: false
        }
    }

    /// Renames the database and its WAL and shared-memory files to
    /// `<name>.corrupt-<UTC timestamp>` and returns the new database path.
    private static func moveAside(_ path: String) throws(StorageError) -> String {
        var now = time(nil)
        var parts = tm()
        gmtime_r(&now, &parts)
        func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
        let stamp = "\(parts.tm_year + 1900)\(two(parts.tm_mon + 1))\(two(parts.tm_mday))T"
            + "\(two(parts.tm_hour))\(two(parts.tm_min))\(two(parts.tm_sec))Z"
        let target = path + ".corrupt-" + stamp
        for suffix in ["-wal", "-shm", ""] where access(path + suffix, F_OK) == 0 {
            guard rename(path + suffix, target + suffix) == 0 else {
                throw .fileSystem(operation: "rename", path: path + suffix, errno: errno)
            }
        }
        return target
    }

    // MARK: Migrations

    private static func validate(_ migrations: [Migration]) throws(StorageError) {
        for (index, migration) in migrations.enumerated() where migration.version != index + 1 {
            throw .invalidMigrations("migration \(index + 1) has version \(migration.version); versions must run 1, 2, 3, …")
        }
    }

    /// Runs the steps the store lacks. A store from a newer Waymark is
    /// opened as it is only if its `schema_compat` row says a Waymark that
    /// knows this schema may still use it; otherwise it is left untouched.
    private static func migrate(_ connection: Connection, _ migrations: [Migration], path: String) throws(StorageError) -> Int {
        let current = Int(try connection.scalar("PRAGMA user_version")?.integer ?? 0)
        let known = try connection.scalar("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'schema_compat'")?.integer == 1
        guard current >= 0 else { throw .damaged(path: path, reason: "its schema version is \(current)") }
        if current == 0, let tables = try connection.scalar("SELECT count(*) FROM sqlite_master")?.integer, tables > 0 {
            throw .damaged(path: path, reason: "it holds \(tables) schema objects but says schema version 0")
        }
        if current > migrations.count {
            let recorded = known ? try connection.scalar("SELECT max(oldest_reader) FROM schema_compat")?.integer : nil
            // Only a version between 1 and the store's own can say who else may read it.
            let oldest = recorded.map { Int(clamping: $0) }.flatMap { (1...current).contains($0) ? $0 : nil } ?? current
            guard oldest <= migrations.count else { throw .newerSchema(found: current, supported: migrations.count, oldestReader: oldest) }
            return current
        }
        let pending = migrations.dropFirst(current)
        guard !pending.isEmpty || !known else { return current }
        let compat = """
            CREATE TABLE IF NOT EXISTS schema_compat (oldest_reader INTEGER NOT NULL);
            DELETE FROM schema_compat;
            INSERT INTO schema_compat (oldest_reader) VALUES (\(Migration.oldestReader(of: migrations)));
            """
        for (index, migration) in zip(pending.indices, pending) {
            try connection.executeScript("BEGIN IMMEDIATE")
            do throws(StorageError) {
                try connection.executeScript(migration.sql)
                // With the last step, in its transaction: who else may open the store now.
                if index == pending.indices.last { try connection.executeScript(compat) }
                try connection.executeScript("PRAGMA user_version=\(migration.version)")
                try connection.executeScript("COMMIT")
            } catch {
                try? connection.executeScript("ROLLBACK")
                // A step that meets what it creates: the version does not match the tables.
                if case .sqlite(let code, let message, _) = error, code & 0xff == SQLITE_ERROR, message.contains("already exists") {
                    throw .damaged(path: path, reason: "schema version \(current) does not match its tables (step \(migration.version): \(message))")
                }
                throw error
            }
        }
        // A store at this version from before the table existed gets it once.
        if pending.isEmpty { try connection.executeScript("BEGIN IMMEDIATE;" + compat + "COMMIT;") }
        return max(current, migrations.count)
    }
}
