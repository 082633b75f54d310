import Foundation
import Storage
import Testing

struct DatabaseTests {
    let directory: String

    init() throws {
        directory = NSTemporaryDirectory() + "waymark-storage-" + UUID().uuidString
    }

    static let migrations = [
        Migration(1, "CREATE TABLE sample (seq INTEGER PRIMARY KEY, body TEXT NOT NULL);"),
        Migration(2, "CREATE TABLE note (id INTEGER PRIMARY KEY, text TEXT); INSERT INTO note (text) VALUES ('v2');"),
    ]

    @Test func migrationsRunOnceAndInOrder() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/w.db"
        do {
            let database = try Database(path: path, migrations: Self.migrations)
            #expect(database.schemaVersion == 2)
        }
        // Opening again must not re-run migration 2's insert.
        let again = try Database(path: path, migrations: Self.migrations)
        let notes = try again.read { try $0.scalar("SELECT count(*) FROM note")?.integer }
        #expect(notes == 1)

        // A third migration added later runs on its own, after the first two.
        let third = Self.migrations + [Migration(3, "ALTER TABLE note ADD COLUMN extra INTEGER DEFAULT 3;")]
        let upgraded = try Database(path: path, migrations: third)
        #expect(upgraded.schemaVersion == 3)
        #expect(try upgraded.read { try $0.scalar("SELECT extra FROM note")?.integer } == 3)
    }

    @Test func aFailingMigrationLeavesTheSchemaWhereItWas() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/w.db"
        _ = try Database(path: path, migrations: Array(Self.migrations.prefix(1)))
        let broken = [Self.migrations[0], Migration(2, "CREATE TABLE half (x); THIS IS NOT SQL;")]
        #expect(throws: StorageError.self) { _ = try Database(path: path, migrations: broken) }
        let reopened = try Database(path: path, migrations: Array(Self.migrations.prefix(1)))
        #expect(reopened.schemaVersion == 1)
        #expect(try reopened.read { try $0.scalar("SELECT count(*) FROM sqlite_master WHERE name = 'half'")?.integer } == 0)
    }

    @Test func aNewerSchemaIsRefusedAndLeftAlone() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/w.db"
        _ = try Database(path: path, migrations: Self.migrations)
        #expect(throws: StorageError.newerSchema(found: 2, supported: 1, oldestReader: 2)) {
            _ = try Database(path: path, migrations: Array(Self.migrations.prefix(1)))
        }
    }

    /// A rollback brings back a Waymark that knows one schema fewer: when
    /// every newer step is compatible, it uses the store as it is (reads and
    /// writes), and the newer Waymark later finds nothing to redo.
    @Test func anOlderWaymarkUsesAStoreWhoseNewerStepsAreAllCompatible() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/w.db"
        let newer = Self.migrations + [Migration(3, "ALTER TABLE note ADD COLUMN extra INTEGER DEFAULT 3;", compatible: true)]
        _ = try Database(path: path, migrations: newer)
        let older = try Database(path: path, migrations: Self.migrations)
        #expect(older.schemaVersion == 3)
        try older.write { try $0.run("INSERT INTO sample (body) VALUES ('written by the older one')") }
        let again = try Database(path: path, migrations: newer)
        #expect(try again.read { try $0.scalar("SELECT count(*) FROM note")?.integer } == 1, "no step ran twice")
        #expect(try again.read { try $0.scalar("SELECT count(*) FROM sample")?.integer } == 1)
    }

    /// Compatibility runs back from the newest step: one incompatible step
    /// shuts out every Waymark older than it, whatever comes after.
    @Test func anIncompatibleStepShutsOutEveryOlderWaymarkAndNamesWhoMayOpenTheStore() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/w.db"
        let newer = Self.migrations + [Migration(3, "ALTER TABLE note ADD COLUMN extra INTEGER DEFAULT 3;", compatible: true)]
        #expect(Migration.oldestReader(of: newer) == 2)
        _ = try Database(path: path, migrations: newer)
        #expect(try Database(path: path, migrations: Self.migrations).schemaVersion == 3)
        let refusal = StorageError.newerSchema(found: 3, supported: 1, oldestReader: 2)
        #expect(throws: refusal) { _ = try Database(path: path, migrations: Array(Self.migrations.prefix(1))) }
        #expect(refusal.description.contains("schema version 3") && refusal.description.contains("knows up to 1")
                    && refusal.description.contains("schema 2 or later") && refusal.description.contains("Fix:"), "\(refusal)")
    }

    @Test func migrationVersionsMustBeConsecutive() {
        #expect(throws: StorageError.self) {
            _ = try Database(path: directory + "/w.db", migrations: [Migration(2, "SELECT 1;")])
        }
    }

    @Test func theDirectoryIs0700AndTheFiles0600() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let old = umask(0)
        defer { umask(old) }
        // The store makes its own directory, not the parents above it.
        mkdir(directory, 0o700)
        let path = directory + "/nested/w.db"
        let database = try Database(path: path, migrations: Self.migrations)
        try database.write { try $0.run("INSERT INTO sample (body) VALUES ('x')") }
        #expect(try mode(directory + "/nested") == 0o700)
        #expect(try mode(path) == 0o600)
        #expect(try mode(path + "-wal") == 0o600)
    }

    @Test func walAndFullSynchronousAreInForce() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let database = try Database(path: directory + "/w.db", migrations: Self.migrations)
        #expect(try database.read { try $0.scalar("PRAGMA journal_mode")?.text } == "wal")
        // 2 = FULL
        #expect(try database.read { try $0.scalar("PRAGMA synchronous")?.integer } == 2)
    }

    @Test func aFileOfGarbageIsMovedAsideAndAFreshStoreOpened() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // A data directory of its own: a shared one (0755) is refused.
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let path = directory + "/w.db"
        let garbage = Data((0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
        try garbage.write(to: URL(fileURLWithPath: path))

        let database = try Database(path: path, migrations: Self.migrations)
        let aside = try #require(database.movedAside)
        #expect(aside.hasPrefix(path + ".corrupt-"))
        #expect(FileManager.default.contents(atPath: aside) == garbage)
        #expect(database.schemaVersion == 2)
    }

    @Test func aTornFileIsDetectedAndMovedAside() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/w.db"
        do {
            let database = try Database(path: path, migrations: Self.migrations)
            try database.write { connection in
                for i in 0..<2000 { try connection.run("INSERT INTO sample (body) VALUES (?)", [.text(String(repeating: "x", count: 100) + "\(i)")]) }
            }
            try database.checkpoint()
        }
        // Overwrite a page in the middle of the b-tree, as a torn write would.
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        try handle.seek(toOffset: 4096 * 20)
        try handle.write(contentsOf: Data(repeating: 0xA5, count: 4096))
        try handle.close()

        let reopened = try Database(path: path, migrations: Self.migrations)
        #expect(reopened.movedAside != nil)
        #expect(try reopened.read { try $0.scalar("SELECT count(*) FROM sample")?.integer } == 0)
    }

    @Test func aWriteThatThrowsRollsBack() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let database = try Database(path: directory + "/w.db", migrations: Self.migrations)
        #expect(throws: StorageError.self) {
            try database.write { connection in
                try connection.run("INSERT INTO sample (body) VALUES ('kept?')")
                try connection.run("INSERT INTO sample (nope) VALUES (1)")
            }
        }
        #expect(try database.read { try $0.scalar("SELECT count(*) FROM sample")?.integer } == 0)
    }

    @Test func errorsCarryTheSQLiteCodeMessageAndStatement() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let database = try Database(path: directory + "/w.db", migrations: Self.migrations)
        do {
            try database.write { try $0.run("INSERT INTO missing VALUES (1)") }
            Issue.record("an insert into a missing table succeeded")
        } catch {
            guard case .sqlite(let code, let message, let sql) = error as? StorageError else { Issue.record("\(error)"); return }
            #expect(code == 1)
            #expect(message.contains("no such table"))
            #expect(sql == "INSERT INTO missing VALUES (1)")
        }
    }

    @Test func valuesOfEveryTypeBindAndReadBack() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let database = try Database(path: directory + "/w.db", migrations: [Migration(1, "CREATE TABLE t (a, b, c, d, e);")])
        let values: [SQLValue] = [.integer(-42), .real(1.5), .text("héllo"), .blob([0, 1, 255]), .null]
        try database.write { try $0.run("INSERT INTO t VALUES (?, ?, ?, ?, ?)", values) }
        let back = try database.read { try $0.rows("SELECT a, b, c, d, e FROM t") { row in (0..<5).map { row.value($0) } } }
        #expect(back == [values])
    }

    private func mode(_ path: String) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) ?? -1
    }
}
