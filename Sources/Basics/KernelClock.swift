internal import CSystem
internal import Glibc

/// The kernel's clocks: `clock_gettime` for wall and boot time, `adjtimex`
/// for whether NTP (systemd-timesyncd, chrony) has synchronized the wall
/// clock; where the unit's system call filter refuses `adjtimex`,
/// systemd-timesyncd's flag file.
public struct KernelClock: SystemClock {
    public let bootID: String
    private let timesyncFlag: String

    public init(timesyncFlag: String = "/run/systemd/timesync/synchronized") {
        bootID = Self.readBootID() ?? "unknown"
        self.timesyncFlag = timesyncFlag
    }

    public func read() -> ClockReading {
        ClockReading(wall: Self.seconds(CLOCK_REALTIME), boot: Self.seconds(CLOCK_BOOTTIME), bootID: bootID,
                     synchronized: csystem_clock_synchronized(timesyncFlag) == 1)
    }

    public func boot() -> Double { Self.seconds(CLOCK_BOOTTIME) }

    private static func seconds(_ clock: clockid_t) -> Double {
        var spec = timespec()
        clock_gettime(clock, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) * 1e-9
    }

    private static func readBootID() -> String? {
        let fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
        guard count > 0 else { return nil }
        return String(decoding: buffer.prefix(count), as: UTF8.self).filter { !$0.isWhitespace }
    }
}
