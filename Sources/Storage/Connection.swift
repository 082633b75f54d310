internal import CSQLite

/// One open SQLite connection with its statement cache. Not thread-safe by
/// itself: `Database` hands it out under a lock.
public final class Connection {
    let raw: OpaquePointer
    private var cache: [String: Statement] = [:]

    init(raw: OpaquePointer) { self.raw = raw }

    deinit {
        cache.removeAll()
        sqlite3_close_v2(raw)
    }

    /// A prepared statement for `sql`, reused across calls.
    public func prepare(_ sql: String) throws(StorageError) -> Statement {
        if let cached = cache[sql] { return cached }
        var statement: OpaquePointer?
        try check(sqlite3_prepare_v3(raw, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil), sql)
        guard let statement else { throw .sqlite(code: SQLITE_MISUSE, message: "empty statement", sql: sql) }
        let prepared = Statement(raw: statement, sql: sql, connection: self)
        cache[sql] = prepared
        return prepared
    }

    /// Runs one statement that returns no rows.
    public func run(_ sql: String, _ values: [SQLValue] = []) throws(StorageError) {
        try prepare(sql).run(values)
    }

    /// Runs a query and maps each row.
    public func rows<T>(_ sql: String, _ values: [SQLValue] = [], _ transform: (Row) throws -> T) throws -> [T] {
        try prepare(sql).rows(values, transform)
    }

    /// The first column of the first row, if any.
    public func scalar(_ sql: String, _ values: [SQLValue] = []) throws(StorageError) -> SQLValue? {
        let statement = try prepare(sql)
        try statement.bind(values)
        defer { statement.reset() }
        return try statement.step() ? Row(statement: statement.raw).value(0) : nil
    }

    /// Runs several statements without parameters (`sqlite3_exec`), for
    /// migrations and pragmas. Nothing is cached.
    public func executeScript(_ sql: String) throws(StorageError) {
        var message: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(raw, sql, nil, nil, &message)
        if rc != SQLITE_OK {
            let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errstr(rc))
            sqlite3_free(message)
            throw .sqlite(code: sqlite3_extended_errcode(raw), message: text, sql: sql)
        }
    }

    /// The rowid of the last insert on this connection.
    public var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(raw) }

    /// Rows changed by the last statement.
    public var changes: Int { Int(sqlite3_changes64(raw)) }

    func check(_ rc: Int32, _ sql: String?) throws(StorageError) {
        guard rc == SQLITE_OK else { throw error(rc, sql) }
    }

    func error(_ rc: Int32, _ sql: String?) -> StorageError {
        let extended = sqlite3_extended_errcode(raw)
        return .sqlite(code: extended != 0 ? extended : rc, message: String(cString: sqlite3_errmsg(raw)), sql: sql)
    }
}
