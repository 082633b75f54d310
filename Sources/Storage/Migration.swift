/// One forward-only schema step. Versions start at 1 and have no holes; a
/// migration runs once, in its own transaction, and sets `PRAGMA user_version`.
///
/// The rule for every new step (an A/B rollback brings back the old binary
/// and keeps the store the new one migrated):
/// - never edit or remove a step: append one;
/// - `compatible: true` only when a Waymark that knows just the schema
///   before it can still read and write the store without losing or
///   misreading anything: new tables it may ignore, new nullable columns
///   or columns with a default whose value it would not contradict;
/// - anything else (a rename, a drop, a new meaning, a new rule that old
///   writes would break) is `compatible: false`: the old Waymark then
///   refuses the store (exit 78, naming both versions), and never touches it.
public struct Migration: Sendable {
    public var version: Int
    public var sql: String
    /// The schema before it can still be served by a store at this version.
    public var compatible: Bool

    public init(_ version: Int, _ sql: String, compatible: Bool = false) {
        self.version = version
        self.sql = sql
        self.compatible = compatible
    }

    /// The oldest schema whose Waymark may open a store after `migrations`:
    /// the version before the newest run of compatible steps.
    public static func oldestReader(of migrations: [Migration]) -> Int {
        let compatibleTail = migrations.reversed().prefix { $0.compatible }.count
        return migrations.count - compatibleTail
    }
}

extension Migration {
    /// Migrations 1, 2, 3, … from schema steps in order.
    public static func numbered(_ steps: [String]) -> [Migration] {
        steps.enumerated().map { Migration($0.offset + 1, $0.element) }
    }
}
