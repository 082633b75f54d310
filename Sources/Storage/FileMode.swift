internal import Glibc

/// Creates files and directories with exact modes, whatever the umask.
enum FileMode {
    /// Creates `path` and its parents; the last component gets `mode`, and an
    /// existing directory is narrowed to it.
    static func ensureDirectory(_ path: String, mode: mode_t) throws(StorageError) {
        var built = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            built += "/" + component
            if mkdir(built, 0o755) != 0 && errno != EEXIST {
                throw .fileSystem(operation: "mkdir", path: built, errno: errno)
            }
        }
        guard chmod(path, mode) == 0 else { throw .fileSystem(operation: "chmod", path: path, errno: errno) }
    }

    /// Creates `path` if needed and sets `mode`. SQLite gives its WAL and
    /// shared-memory files the database file's mode, so they follow.
    static func ensureFile(_ path: String, mode: mode_t) throws(StorageError) {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, mode)
        guard fd >= 0 else { throw .fileSystem(operation: "open", path: path, errno: errno) }
        defer { close(fd) }
        guard fchmod(fd, mode) == 0 else { throw .fileSystem(operation: "chmod", path: path, errno: errno) }
    }
}
