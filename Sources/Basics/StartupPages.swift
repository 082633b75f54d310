internal import Glibc

/// The pages of code a process mapped while it started, unmapped once it
/// runs steadily.
///
/// The kernel maps a file's pages 64 KiB around each one a process touches
/// (fault-around), so the daemon's start-up (config, store migration, the
/// session, TLS set-up, every service's start) leaves much of the binary's
/// code and of libcrypto's mapped, though recording then runs a fraction
/// of it. `release` unmaps every executable file mapping's pages from this
/// process (`MADV_DONTNEED`): they stay in the page cache, and what
/// recording runs is mapped again, with fault-around, at its first use.
/// Only code: it is never written, so nothing of the process's is lost. (A
/// read-only data mapping may hold relocated pages, RELRO, that the file
/// cannot give back.) `MADV_PAGEOUT` would drop the pages from the cache
/// too, but the kernel does that only for a file the process could write
/// (`can_do_file_pageout`), and `/usr/bin/waymark` is root's.
public enum StartupPages {
    /// Resident pages of this process before and after, and how many
    /// mappings the kernel refused to advise (with the first reason).
    public static func release() -> (before: Int, after: Int, refused: Int, reason: String?) {
        let before = residentPages()
        var refused = 0
        var reason: String?
        for (start, length) in codeMappings() {
            guard let address = UnsafeMutableRawPointer(bitPattern: start), madvise(address, length, MADV_DONTNEED) != 0 else { continue }
            refused += 1
            reason = reason ?? String(cString: strerror(errno))
        }
        return (before, residentPages(), refused, reason)
    }

    /// Mappings of files' code: readable and executable, not writable.
    static func codeMappings() -> [(start: UInt, length: Int)] {
        guard let maps = try? BoundedFile.read("/proc/self/maps", limit: 1 << 20) else { return [] }
        return String(decoding: maps, as: UTF8.self).split(separator: "\n").compactMap { line in
            // start-end perms offset dev inode path
            let fields = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
            // The path follows the inode after a run of spaces.
            guard fields.count == 6, fields[1].hasPrefix("r-x"), fields[5].drop(while: { $0 == " " }).hasPrefix("/") else { return nil }
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
