internal import Glibc

/// What the store can fail with. SQLite errors carry the extended result code,
/// SQLite's message and the statement; file-system errors carry the path and
/// errno.
public enum StorageError: Error, Sendable, Equatable {
    case sqlite(code: Int32, message: String, sql: String?)
    case fileSystem(operation: String, path: String, errno: Int32)
    /// The file was written by a newer Waymark; it is left untouched.
    /// A newer Waymark's store, which a Waymark that knows up to `supported`
    /// may not use: only one that knows `oldestReader` or later.
    case newerSchema(found: Int, supported: Int, oldestReader: Int)
    case invalidMigrations(String)
    /// A path the store will not use: a symbolic link, not a directory, or
    /// open to other users.
    case refused(path: String, reason: String)
    /// The file is not a store this Waymark can use as it is: torn, not a
    /// database, empty, or with a schema version its tables contradict.
    /// Commands that write move it aside; the others leave it untouched.
    case damaged(path: String, reason: String)
    /// The store belongs to another user (say, root made it with `sudo`).
    case notOwned(path: String, owner: UInt32, user: UInt32)

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
    /// A user's name, or `uid N`.
    private static func name(of uid: UInt32) -> String {
        guard let entry = getpwuid(uid), let name = entry.pointee.pw_name else { return "uid \(uid)" }
        return String(cString: name)
    }

    public var description: String {
        switch self {
        case .sqlite(let code, let message, let sql):
            "SQLite error \(code): \(message)" + (sql.map { " in \($0.prefix(80))" } ?? "")
        case .fileSystem(let operation, let path, let errno):
            "\(operation) \(path): \(String(cString: strerror(errno)))"
        case .newerSchema(let found, let supported, let oldestReader):
            "the store has schema version \(found), from a newer Waymark, which a Waymark knowing schema \(oldestReader) or later may use; "
                + "this one knows up to \(supported), so it leaves the store untouched. Fix: install that newer Waymark again, "
                + "or move the store aside (it is kept) and log in to start an empty one"
        case .invalidMigrations(let why):
            "invalid migrations: \(why)"
        case .damaged(let path, let reason):
            "the store \(path) is damaged (\(reason)); waymark start or the daemon moves it aside, keeping it, and starts an empty one"
        case .refused(let path, let reason):
            "refusing to use \(path): it \(reason)"
        case .notOwned(let path, let owner, let user):
            "\(path) belongs to \(Self.name(of: owner)), not to \(Self.name(of: user)) running this; run waymark as \(Self.name(of: owner)) (sudo -u \(Self.name(of: owner)) waymark …)"
        }
    }
}
