internal import CSystem
internal import Glibc

/// Transparent huge pages, which `waymark` turns off for itself at start.
///
/// Debian's kernels have them "always" on: wherever a small daemon's heap
/// grows across an aligned 2 MiB range, it takes a whole 2 MiB page. The
/// scanner's memory among the same devices then differed by 0, 2 or 4 MiB
/// of `AnonHugePages` from one run to the next (`make bench-air-memory`),
/// for a process with nothing to gain from them.
public enum HugePages {
    /// Turns them off for this process and what it executes; the kernel's
    /// reason when it refuses. Nil too where the setting does not exist
    /// (EINVAL: qemu-user, which runs the arm64 `waymark` while its package
    /// is built, or a kernel before 3.15): nothing can be done about it.
    public static func turnOff() -> String? {
        guard csystem_disable_huge_pages() != 0, errno != EINVAL else { return nil }
        return String(cString: strerror(errno))
    }
}
