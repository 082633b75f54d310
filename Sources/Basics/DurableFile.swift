internal import Glibc

/// Files that survive a power cut whole: written under a temporary name in
/// the same directory, synced, renamed (or linked) into place, and the
/// directory synced, so a cut at any moment leaves the old file or the new
/// one, never a part of either.
///
/// Temporary names end in `.new`; a cut can leave one behind, and whoever
/// owns the directory may delete them (`removeLeftovers`).
public enum DurableFile {
    /// Writes `bytes` to `path` with `mode` (whatever the umask). Without
    /// `replace`, an existing `path` is an error (`.exists`) and is kept.
    public static func write(_ bytes: [UInt8], to path: String, mode: UInt32 = 0o600, replace: Bool) throws(DurableFileError) {
        close(try begin(path, head: bytes, mode: mode, replace: replace))
    }

    /// Opens a new file whose first bytes are `head`, for appending: the
    /// file appears at `path` only with `head` synced (`fdatasync` also
    /// syncs the size a reader needs). Without `replace`, `path` must not
    /// exist. The caller owns the descriptor.
    public static func begin(_ path: String, head: [UInt8], mode: UInt32 = 0o600, replace: Bool = false) throws(DurableFileError) -> Int32 {
        try refuseUnlessRegular(path)
        let temporary = temporaryPath(for: path)
        let fd = try create(temporary, mode: mode)
        do throws(DurableFileError) {
            try writeAll(head, to: fd, path: path)
            guard fdatasync(fd) == 0 else { throw .system(path: path, operation: "sync", errno: errno) }
            try publish(temporary, as: path, replace: replace)
            return fd
        } catch {
            close(fd)
            unlink(temporary)
            throw error
        }
    }

    /// Syncs the directory holding `path`, so a rename, a new name or a
    /// deletion in it survives a power cut.
    public static func syncDirectory(of path: String) throws(DurableFileError) {
        let directory = Self.directory(of: path)
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw .system(path: directory, operation: "open", errno: errno) }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw .system(path: directory, operation: "sync", errno: errno) }
    }

    /// Deletes the temporary files a cut left in `directory` whose names
    /// start with `prefix`.
    public static func removeLeftovers(in directory: String, prefix: String) {
        guard let dir = opendir(directory) else { return }
        defer { closedir(dir) }
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name.hasPrefix(prefix), name.hasSuffix(".new") { unlink(directory + "/" + name) }
        }
    }

    static func temporaryPath(for path: String) -> String { path + ".new" }

    /// Throws when something other than a regular file is at `path`: a
    /// rename would put a file in place of a device, a FIFO or a link.
    private static func refuseUnlessRegular(_ path: String) throws(DurableFileError) {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        let kind = switch info.st_mode & S_IFMT {
        case S_IFREG: ""
        case S_IFLNK: "a symbolic link"
        case S_IFDIR: "a directory"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFIFO: "a FIFO"
        case S_IFSOCK: "a socket"
        default: "not a file"
        }
        guard kind.isEmpty else { throw .notRegular(path: path, kind: kind) }
    }

    private static func create(_ temporary: String, mode: mode_t) throws(DurableFileError) -> Int32 {
        // A temporary left by a cut is stale: nobody else writes this name.
        unlink(temporary)
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
        guard fd >= 0 else { throw .system(path: temporary, operation: "create", errno: errno) }
        guard fchmod(fd, mode) == 0 else {
            let code = errno
            close(fd)
            unlink(temporary)
            throw .system(path: temporary, operation: "set the mode of", errno: code)
        }
        return fd
    }

    private static func writeAll(_ bytes: [UInt8], to fd: Int32, path: String) throws(DurableFileError) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if written < 0, errno == EINTR { continue }
            guard written > 0 else { throw .system(path: path, operation: "write", errno: errno) }
            offset += written
        }
    }

    /// Puts the synced temporary in place: rename to replace, link to
    /// refuse an existing file (link, unlike rename, never replaces).
    private static func publish(_ temporary: String, as path: String, replace: Bool) throws(DurableFileError) {
        if replace {
            guard rename(temporary, path) == 0 else { throw .system(path: path, operation: "rename into", errno: errno) }
        } else {
            guard link(temporary, path) == 0 else {
                throw errno == EEXIST ? .exists(path: path) : .system(path: path, operation: "link into", errno: errno)
            }
            unlink(temporary)
        }
        try syncDirectory(of: path)
    }

    /// The directory part of `path` ("." for a bare name).
    public static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}
