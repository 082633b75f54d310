/// One forward-only schema step. Versions start at 1 and have no holes; a
/// migration runs once, in its own transaction, and sets `PRAGMA user_version`.
public struct Migration: Sendable {
    public var version: Int
    public var sql: String

    public init(_ version: Int, _ sql: String) {
        self.version = version
        self.sql = sql
    }
}

extension Migration {
    /// Migrations 1, 2, 3, … from schema steps in order.
    public static func numbered(_ steps: [String]) -> [Migration] {
        steps.enumerated().map { Migration($0.offset + 1, $0.element) }
    }
}
