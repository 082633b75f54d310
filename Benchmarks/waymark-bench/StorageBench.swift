import Foundation
import Peers
import Storage

/// Batched inserts into the store, against the sqlite3 CLI inserting the same
/// rows in one transaction, both in WAL mode with synchronous=FULL.
struct StorageBench {
    var quick: Bool

    static let schema = "CREATE TABLE sample (seq INTEGER PRIMARY KEY, time REAL NOT NULL, kind TEXT NOT NULL, body TEXT NOT NULL);"

    func run(into report: inout BenchReport) throws {
        let directory = try TemporaryDirectory("waymark-bench")
        defer { directory.remove() }
        let rows = quick ? 20_000 : 200_000
        let body = #"{"lat":52.520008,"lon":13.404954,"speed":13.9,"track":271.5}"#

        let database = try Database(path: directory.file("ours.db"), migrations: [Migration(1, Self.schema)])
        let ours = try measure {
            try database.write { connection in
                let insert = try connection.prepare("INSERT INTO sample (seq, time, kind, body) VALUES (?, ?, ?, ?)")
                for seq in 0..<rows {
                    try insert.run([.integer(Int64(seq)), .real(1_700_000_000 + Double(seq)), .text("fix"), .text(body)])
                }
            }
        }

        var sql = "PRAGMA journal_mode=WAL;\nPRAGMA synchronous=FULL;\n\(Self.schema)\nBEGIN;\n"
        sql.reserveCapacity(rows * 120)
        for seq in 0..<rows {
            sql += "INSERT INTO sample (seq, time, kind, body) VALUES (\(seq), \(1_700_000_000 + Double(seq)), 'fix', '\(body)');\n"
        }
        sql += "COMMIT;\n"
        let script = directory.file("insert.sql")
        try sql.write(toFile: script, atomically: true, encoding: .utf8)
        let cli = try measure {
            let process = try ChildProcess("sqlite3", [directory.file("cli.db"), ".read \(script)"],
                                           aptPackage: "sqlite3", logPath: directory.file("sqlite3.log"))
            guard try process.wait(timeout: 600) == 0 else { throw PeerError.startFailed("sqlite3", output: process.output) }
        }
        report.add("sqlite.inserts", Double(rows) / ours, unit: "rows/s", baseline: Double(rows) / cli,
                   baselineName: "sqlite3 CLI", note: "\(rows) rows in one transaction, WAL, synchronous=FULL")
    }
}
