import Foundation
import PeerHarness
import Store
import Testing

/// A store made by the previous release opened by this one: migrated, with
/// every sample, trip, pairing, event and the session kept as they were.
///
/// `PreviousRelease/store-schema10.db` is Waymark 9a8096b's (schema 10):
/// its `make demo` (login, pairing, a trip of 9 fixes, uploads), then its
/// `waymark run` for 6 s with no system bus and the backend gone, which
/// left 3 samples queued; then checkpointed and vacuumed.
struct PreviousReleaseStoreTests {
    static let fixture = Checkout.path("Tests/StoreTests/PreviousRelease/store-schema10.db")
    static let tables = ["outbox", "trip", "trip_point", "pairing", "session", "event", "meta"]

    @Test func aStoreThePreviousReleaseWroteMigratesAndKeepsEverything() throws {
        let work = try TemporaryDirectory("waymark-previous")
        defer { work.remove() }
        try FileManager.default.createDirectory(atPath: work.file("data"), withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        let store = work.file("data/waymark.db")
        try FileManager.default.copyItem(atPath: Self.fixture, toPath: store)
        try "[Session]\nIssuer = http://127.0.0.1:9/api/oidc\nClientId = waymark\n\n[Backend]\nBaseURL = http://127.0.0.1:9\n"
            .write(toFile: work.file("waymark.conf"), atomically: true, encoding: .utf8)
        let before = try Self.tables.map { try Self.rows($0, in: store, work) }
        #expect(try Self.rows("pragma_user_version", in: store, work).first?["user_version"] as? Int == 10)

        func waymark(_ arguments: [String]) throws -> String {
            let result = try WaymarkBinary.run(["--config", work.file("waymark.conf"), "--data-dir", work.file("data")] + arguments, in: work)
            #expect(result.status == 0, "\(arguments): \(result.output)")
            return result.output
        }
        #expect(try waymark(["whoami", "--json"]).contains(#""authorized":true"#))
        #expect(try waymark(["queue", "--json"]).contains(#""depth":3"#))
        #expect(try waymark(["trips", "--json"]).contains(#""points":9"#))
        #expect(try waymark(["beacons", "--json"]).contains("ibeacon:e2c56db5-dffb-48d2-b060-d0f5a71096e0:100:0"))

        #expect(try Self.rows("pragma_user_version", in: store, work).first?["user_version"] as? Int == GatewayStore.migrations.count)
        for (table, old) in zip(Self.tables, before) {
            #expect(!old.isEmpty, "the fixture has rows in \(table)")
            // Each row as it was, in the columns it had; new columns may be added.
            let now = try Self.rows(table, in: store, work).map { row in row.filter { old.first?[$0.key] != nil } }
            #expect(now.map(Self.canonical) == old.map(Self.canonical), "\(table)")
        }
    }

    /// Every row of `table` as sqlite3's JSON, in rowid order (a pragma table as it comes).
    static func rows(_ table: String, in path: String, _ work: TemporaryDirectory) throws -> [[String: Any]] {
        let query = table.hasPrefix("pragma") ? "SELECT * FROM \(table)" : "SELECT * FROM \(table) ORDER BY rowid"
        let process = try ChildProcess("sqlite3", ["-json", "-readonly", path, query], aptPackage: "sqlite3",
                                       logPath: work.file("sqlite3-\(UUID().uuidString).log"))
        #expect(try process.wait(timeout: 30) == 0, "\(process.output)")
        let output = process.output.trimmingCharacters(in: .whitespacesAndNewlines)
        return output.isEmpty ? [] : (try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [[String: Any]]) ?? []
    }

    static func canonical(_ row: [String: Any]) -> String {
        String(decoding: (try? JSONSerialization.data(withJSONObject: row, options: [.sortedKeys])) ?? Data(), as: UTF8.self)
    }
}
