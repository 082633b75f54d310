import Gateway
import Logging
internal import Glibc

/// Writes a file of the user's private data (a track, a report): mode 0600
/// whatever the umask, never through a symbolic link, and never over an
/// existing file unless `replace` says so.
enum PrivateFile {
    enum Problem: Error, CustomStringConvertible {
        case exists(String)
        case system(String, Int32)

        var description: String {
            switch self {
            case .exists(let path): "\(path) exists; add --force to replace it"
            case .system(let path, let code): "\(path): \(String(cString: strerror(code)))"
            }
        }
    }

    static func write(_ bytes: [UInt8], to path: String, replace: Bool) throws(Problem) {
        if replace, unlink(path) != 0, errno != ENOENT { throw .system(path, errno) }
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw errno == EEXIST ? .exists(path) : .system(path, errno) }
        defer { close(fd) }
        guard fchmod(fd, 0o600) == 0 else { throw .system(path, errno) }
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if written < 0, errno == EINTR { continue }
            guard written > 0 else { throw .system(path, errno) }
            offset += written
        }
        guard fsync(fd) == 0 else { throw .system(path, errno) }
    }

    /// A command's `--out` file (replaced with `--force`): `done` is said
    /// once it is written; a file that cannot be is said and exits 73.
    static func output(_ text: String, to path: String, _ invocation: Invocation, saying done: @autoclosure () -> String) -> ExitCode {
        do {
            try write(Array(text.utf8), to: path, replace: invocation.flag("--force"))
        } catch {
            Log.error("\(invocation.command ?? "waymark"): \(error)")
            return .cannotCreate
        }
        Log.notice(done())
        return .ok
    }
}
