import Foundation
import PeerHarness
import Storage
import Store
import Testing

/// An A/B rollback brings back the previous binary with the store the new
/// one migrated. Played here by a store that claims a schema one newer than
/// this build's: the older Waymark uses it when the newer steps say it may,
/// and otherwise refuses with exit 78, naming both schemas and the fix,
/// without touching it.
struct StoreRollbackTests {
    @Test func anOlderWaymarkUsesACompatibleNewerStoreAndRefusesAnotherWith78() throws {
        let work = try TemporaryDirectory("waymark-rollback")
        defer { work.remove() }
        func waymark(_ arguments: [String]) throws -> (status: Int32, output: String) {
            try WaymarkBinary.run(["--data-dir", work.file("data")] + arguments, in: work)
        }
        #expect(try waymark(["pair", "--ibeacon", "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0:100:0", "--label", "car"]).status == 0)
        let ours = GatewayStore.migrations.count
        func claim(schema: Int, oldestReader: Int) throws {
            let database = try Database(path: work.file("data/waymark.db"), migrations: GatewayStore.migrations)
            try database.write { connection in
                try connection.run("PRAGMA user_version = \(schema)")
                try connection.run("UPDATE schema_compat SET oldest_reader = \(oldestReader)")
            }
        }
        try claim(schema: ours + 1, oldestReader: ours + 1)
        let before = try Data(contentsOf: URL(fileURLWithPath: work.file("data/waymark.db")))
        let refused = try waymark(["beacons"])
        #expect(refused.status == 78, "\(refused.output)")
        #expect(refused.output.contains("schema version \(ours + 1)") && refused.output.contains("knows up to \(ours)")
                    && refused.output.contains("Fix: install that newer Waymark again"), "\(refused.output)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: work.file("data/waymark.db"))) == before, "the store is left untouched")

        // Written with only compatible steps after ours: used as it is.
        let database = try Database(path: work.file("data/waymark.db"), migrations: GatewayStore.migrations + [Migration(ours + 1, "SELECT 1;")])
        try database.write { try $0.run("UPDATE schema_compat SET oldest_reader = \(ours)") }
        let used = try waymark(["beacons"])
        #expect(used.status == 0 && used.output.contains("ibeacon:e2c56db5"), "\(used.output)")
    }
}
