internal import Basics
internal import Glibc

/// Small files the kernel serves (`/proc`, `/sys`): read whole up to a
/// bound, or written once.
enum KernelFile {
    /// The file's bytes; nil when it cannot be read or has over `limit`.
    static func read(_ path: String, limit: Int = 1 << 16) -> [UInt8]? {
        try? BoundedFile.read(path, limit: limit)
    }

    /// The file's first line, without the newline.
    static func line(_ path: String) -> String? {
        read(path, limit: 4096).map { String(decoding: $0.prefix { $0 != UInt8(ascii: "\n") }, as: UTF8.self) }
    }

    /// Writes `text`; false when the file cannot be opened or written.
    static func write(_ text: String, to path: String) -> Bool {
        let fd = open(path, O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { _ = close(fd) }
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) } == bytes.count
    }

    /// The names in a directory; empty when it cannot be read.
    static func names(in directory: String) -> [String] {
        guard let dir = opendir(directory) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }
}
