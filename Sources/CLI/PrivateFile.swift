import Basics
import Command
import Logging

/// Writes a file of the user's private data (a track, a report): mode 0600
/// whatever the umask, and never over an existing file unless `replace`
/// says so (a symbolic link at the path is replaced, never followed).
enum PrivateFile {
    /// A command's `--out` file (replaced with `--force`, atomically: a power
    /// cut leaves the old file or the new one; only a regular file is ever
    /// replaced): `done` is said once it is written. `-` is standard output.
    /// A file that cannot be made exits 73, one whose bytes cannot be written 74.
    static func output(_ text: String, to path: String, _ invocation: Invocation, saying done: @autoclosure () -> String) -> ExitCode {
        guard path != "-" else {
            print(text, terminator: "")
            return .ok
        }
        do {
            try DurableFile.write(Array(text.utf8), to: path, mode: 0o600, replace: invocation.flag("--force"))
        } catch .exists(let path) {
            Log.error("\(invocation.command ?? "waymark"): \(path) exists; add --force to replace it")
            return .cannotCreate
        } catch {
            Log.error("\(invocation.command ?? "waymark"): \(error)")
            return error.isWriteFailure ? .ioError : .cannotCreate
        }
        Log.notice(done())
        return .ok
    }
}
