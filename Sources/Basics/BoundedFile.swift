internal import Glibc

/// A whole file read into memory, refused past a bound: `/dev/zero` or a
/// runaway file is not slurped. The buffer starts at a page and doubles, so
/// a small file costs a small allocation.
public enum BoundedFile {
    /// The file's bytes; throws `.tooLarge` when it has more than `limit`.
    public static func read(_ path: String, limit: Int) throws(BoundedFileError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .cannotOpen(errno: errno) }
        defer { _ = close(fd) }
        var bytes = [UInt8](repeating: 0, count: min(limit + 1, 4096))
        var count = 0
        while true {
            if count == bytes.count {
                guard count <= limit else { throw .tooLarge(limit: limit) }
                bytes.append(contentsOf: repeatElement(0, count: min(count, limit + 1 - count)))
            }
            let got = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + count, $0.count - count) }
            if got < 0, errno == EINTR { continue }
            guard got >= 0 else { throw .cannotRead(errno: errno) }
            if got == 0 { break }
            count += got
        }
        bytes.removeLast(bytes.count - count)
        return bytes
    }
}
