internal import CSQLite

/// A prepared statement (`sqlite3_prepare_v3`), cached by its connection and
/// reset after each use.
public final class Statement {
    let raw: OpaquePointer
    let sql: String
    unowned let connection: Connection

    init(raw: OpaquePointer, sql: String, connection: Connection) {
        self.raw = raw
        self.sql = sql
        self.connection = connection
    }

    deinit { sqlite3_finalize(raw) }

    /// Binds `values` to the parameters `?1…?n` (`sqlite3_bind_*`).
    public func bind(_ values: [SQLValue]) throws(StorageError) {
        sqlite3_reset(raw)
        sqlite3_clear_bindings(raw)
        guard values.count == Int(sqlite3_bind_parameter_count(raw)) else {
            throw .sqlite(code: SQLITE_RANGE, message: "\(values.count) values for \(sqlite3_bind_parameter_count(raw)) parameters", sql: sql)
        }
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let rc: Int32
            switch value {
            case .null: rc = sqlite3_bind_null(raw, index)
            case .integer(let v): rc = sqlite3_bind_int64(raw, index, v)
            case .real(let v): rc = sqlite3_bind_double(raw, index, v)
            case .text(let v): rc = sqlite3_bind_text(raw, index, v, -1, csqlite_transient())
            case .blob(let v):
                rc = v.withUnsafeBytes { sqlite3_bind_blob(raw, index, $0.baseAddress, Int32($0.count), csqlite_transient()) }
            }
            try connection.check(rc, sql)
        }
    }

    /// Runs a statement that returns no rows.
    public func run(_ values: [SQLValue] = []) throws(StorageError) {
        try bind(values)
        defer { sqlite3_reset(raw) }
        while try step() {}
    }

    /// Runs a query and maps each row.
    public func rows<T>(_ values: [SQLValue] = [], _ transform: (Row) throws -> T) throws -> [T] {
        try bind(values)
        defer { sqlite3_reset(raw) }
        var out: [T] = []
        while try step() { out.append(try transform(Row(statement: raw))) }
        return out
    }

    func reset() { sqlite3_reset(raw) }

    /// One step; true while a row is available.
    func step() throws(StorageError) -> Bool {
        switch sqlite3_step(raw) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        case let rc: throw connection.error(rc, sql)
        }
    }
}
