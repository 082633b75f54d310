internal import CSQLite

/// The current row of a query. It reads the statement in place, so it is
/// valid only inside the `rows` closure that received it.
public struct Row {
    let statement: OpaquePointer

    init(statement: OpaquePointer) { self.statement = statement }

    public var count: Int { Int(sqlite3_column_count(statement)) }

    public func isNull(_ column: Int) -> Bool { sqlite3_column_type(statement, Int32(column)) == SQLITE_NULL }

    public func integer(_ column: Int) -> Int64 { sqlite3_column_int64(statement, Int32(column)) }

    public func real(_ column: Int) -> Double { sqlite3_column_double(statement, Int32(column)) }

    public func text(_ column: Int) -> String? {
        // The length SQLite already knows, rather than a scan for the NUL.
        guard let text = sqlite3_column_text(statement, Int32(column)) else { return nil }
        return String(decoding: UnsafeBufferPointer(start: text, count: Int(sqlite3_column_bytes(statement, Int32(column)))), as: UTF8.self)
    }

    /// The value's length in bytes as text, read in place without a copy.
    public func byteCount(_ column: Int) -> Int {
        _ = sqlite3_column_text(statement, Int32(column))
        return Int(sqlite3_column_bytes(statement, Int32(column)))
    }

    public func blob(_ column: Int) -> [UInt8] {
        let count = Int(sqlite3_column_bytes(statement, Int32(column)))
        guard count > 0, let base = sqlite3_column_blob(statement, Int32(column)) else { return [] }
        return Array(UnsafeRawBufferPointer(start: base, count: count))
    }

    /// The column as an `SQLValue`, whatever its storage class.
    public func value(_ column: Int) -> SQLValue {
        switch sqlite3_column_type(statement, Int32(column)) {
        case SQLITE_INTEGER: .integer(integer(column))
        case SQLITE_FLOAT: .real(real(column))
        case SQLITE_TEXT: text(column).map(SQLValue.text) ?? .null
        case SQLITE_BLOB: .blob(blob(column))
        default: .null
        }
    }
}
