internal import Glibc

/// Creates the store's directory and file with exact modes, whatever the
/// umask, and refuses what someone else made: a symbolic link, a directory
/// or file owned by another user, or a directory others can reach.
enum FileMode {
    /// Creates `path` with `mode` when `create` says so; its parent must
    /// exist (a mistyped `--data-dir` is not a new store). An existing
    /// directory is used only as it is: owned by this user and no wider
    /// than `mode`; it is never narrowed behind the user's back.
    static func ensureDirectory(_ path: String, mode: mode_t, create: Bool) throws(StorageError) {
        if create, mkdir(path, 0o700) == 0 {
            guard chmod(path, mode) == 0 else { throw .fileSystem(operation: "chmod", path: path, errno: errno) }
        } else if create, errno != EEXIST {
            throw .fileSystem(operation: "mkdir", path: path, errno: errno)
        }
        var info = stat()
        guard lstat(path, &info) == 0 else { throw .fileSystem(operation: "stat", path: path, errno: errno) }
        guard info.st_mode & S_IFMT == S_IFDIR else { throw .refused(path: path, reason: "is not a directory") }
        try checkOwner(path, info)
        guard info.st_mode & 0o777 & ~mode == 0 else {
            throw .refused(path: path, reason: "can be reached by other users (mode \(octal(info.st_mode & 0o777))); give the store a directory of its own with mode \(octal(mode))")
        }
    }

    /// Creates `path` if needed (and `create` allows), never through a
    /// symbolic link, and sets `mode`. SQLite gives its WAL and
    /// shared-memory files the database file's mode, so they follow.
    static func ensureFile(_ path: String, mode: mode_t, create: Bool) throws(StorageError) {
        let fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW | (create ? O_CREAT : 0), mode)
        guard fd >= 0 else {
            if errno == ELOOP { throw .refused(path: path, reason: "is a symbolic link") }
            throw .fileSystem(operation: "open", path: path, errno: errno)
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw .fileSystem(operation: "stat", path: path, errno: errno) }
        guard info.st_mode & S_IFMT == S_IFREG else { throw .refused(path: path, reason: "is not a regular file") }
        try checkOwner(path, info)
        guard fchmod(fd, mode) == 0 else { throw .fileSystem(operation: "chmod", path: path, errno: errno) }
    }

    /// Whether the file at `path` holds no bytes (SQLite would take it for a new database).
    static func isEmpty(_ path: String) throws(StorageError) -> Bool {
        var info = stat()
        guard lstat(path, &info) == 0 else { throw .fileSystem(operation: "stat", path: path, errno: errno) }
        return info.st_size == 0
    }

    /// Whether something is at `path` (a symbolic link included); a path
    /// that cannot be looked at counts, so that opening it says why.
    static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 || errno != ENOENT
    }

    private static func checkOwner(_ path: String, _ info: stat) throws(StorageError) {
        guard info.st_uid == geteuid() else { throw .notOwned(path: path, owner: info.st_uid, user: geteuid()) }
    }

    private static func octal(_ mode: mode_t) -> String { "0" + String(mode, radix: 8) }
}
