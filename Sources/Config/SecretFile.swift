import Glibc
import Logging

/// Reads a small secret from a file (a client secret, a bindkey): at most
/// 4 KiB, whitespace removed, with a warning when other users can read it.
/// The secret itself never appears in a message.
package enum SecretFile {
    package struct Problem: Error, CustomStringConvertible {
        package var path: String
        package var code: Int32

        package var description: String { "cannot read \(path): \(String(cString: strerror(code)))" }
    }

    package static func read(_ path: String) throws(Problem) -> String {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw Problem(path: path, code: errno) }
        defer { close(fd) }
        var info = stat()
        if fstat(fd, &info) == 0, info.st_mode & 0o077 != 0 { Log.warning("\(path) can be read by other users; chmod 600 it") }
        var buffer = [UInt8](repeating: 0, count: 4096)
        var count = 0
        while count < buffer.count {
            let got = buffer[count...].withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if got < 0, errno == EINTR { continue }
            guard got >= 0 else { throw Problem(path: path, code: errno) }
            if got == 0 { break }
            count += got
        }
        return String(decoding: buffer.prefix(count), as: UTF8.self).filter { !$0.isWhitespace }
    }
}
