internal import Glibc

/// The pages of code and read-only data a process mapped while it started,
/// given back once it runs steadily.
///
/// The kernel maps a file's pages 64 KiB around each one a process touches
/// (fault-around), and reads 128 KiB around each one it reads in
/// (read-around), so the daemon's start-up (config, store migration, the
/// session, TLS set-up, every service's start) leaves most of the binary's
/// code and of libcrypto mapped, though recording then runs a fraction of
/// it. `release` marks every read-only file mapping as read at random (no
/// read-around from now on) and asks the kernel to page out what of them
/// this process alone maps (`MADV_PAGEOUT`, Linux 5.4): clean pages of
/// files, dropped without writing anything. Shared pages (libc's, another
/// process's) are left alone. What recording runs comes back page by page,
/// at its first use after this.
public enum StartupPages {
    /// Resident pages of this process before and after, and how many
    /// mappings the kernel refused to advise (with the first reason).
    public static func release() -> (before: Int, after: Int, refused: Int, reason: String?) {
        let before = residentPages()
        var refused = 0
        var reason: String?
        for (start, length) in readOnlyFileMappings() {
            guard let address = UnsafeMutableRawPointer(bitPattern: start) else { continue }
            for advice in [MADV_RANDOM, MADV_PAGEOUT] where madvise(address, length, advice) != 0 {
                refused += 1
                reason = reason ?? String(cString: strerror(errno))
            }
        }
        return (before, residentPages(), refused, reason)
    }

    /// Mappings of files that this process cannot write: code and read-only data.
    static func readOnlyFileMappings() -> [(start: UInt, length: Int)] {
        guard let maps = try? BoundedFile.read("/proc/self/maps", limit: 1 << 20) else { return [] }
        return String(decoding: maps, as: UTF8.self).split(separator: "\n").compactMap { line in
            // start-end perms offset dev inode path
            let fields = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
            guard fields.count == 6, fields[1].hasPrefix("r"), !fields[1].contains("w"), fields[5].hasPrefix("/") else { return nil }
            let range = fields[0].split(separator: "-")
            guard range.count == 2, let start = UInt(range[0], radix: 16), let end = UInt(range[1], radix: 16), end > start else { return nil }
            return (start, Int(end - start))
        }
    }

    /// Resident pages now (`/proc/self/statm`'s second field); 0 if unreadable.
    static func residentPages() -> Int {
        guard let statm = try? BoundedFile.read("/proc/self/statm", limit: 256) else { return 0 }
        let fields = String(decoding: statm, as: UTF8.self).split(separator: " ")
        return fields.count > 1 ? Int(fields[1]) ?? 0 : 0
    }
}
