internal import Glibc

/// What the store can fail with. SQLite errors carry the extended result code,
/// SQLite's message and the statement; file-system errors carry the path and
/// errno.
public enum StorageError: Error, Sendable, Equatable {
    case sqlite(code: Int32, message: String, sql: String?)
    case fileSystem(operation: String, path: String, errno: Int32)
    /// The file was written by a newer Waymark; it is left untouched.
    case newerSchema(found: Int, supported: Int)
    case invalidMigrations(String)

    /// SQLITE_BUSY, SQLITE_LOCKED and their extended codes.
    public var isBusy: Bool {
        if case .sqlite(let code, _, _) = self { return code & 0xff == 5 || code & 0xff == 6 }
        return false
    }

    /// SQLITE_FULL: the disk or the file-size limit is reached.
    public var isFull: Bool {
        if case .sqlite(let code, _, _) = self { return code & 0xff == 13 }
        return false
    }
}

extension StorageError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .sqlite(let code, let message, let sql):
            "SQLite error \(code): \(message)" + (sql.map { " in \($0.prefix(80))" } ?? "")
        case .fileSystem(let operation, let path, let errno):
            "\(operation) \(path): \(String(cString: strerror(errno)))"
        case .newerSchema(let found, let supported):
            "the store has schema version \(found) but this Waymark knows only up to \(supported); refusing to touch it"
        case .invalidMigrations(let why):
            "invalid migrations: \(why)"
        }
    }
}
