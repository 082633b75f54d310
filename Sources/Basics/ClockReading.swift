/// The system's clocks read together.
public struct ClockReading: Sendable, Equatable {
    /// `CLOCK_REALTIME`, seconds since 1970: it jumps when NTP or GPS sets it.
    public var wall: Double
    /// `CLOCK_BOOTTIME`, seconds since boot, counting suspend: it never jumps.
    public var boot: Double
    /// This boot (`/proc/sys/kernel/random/boot_id`): boot times compare only within one.
    public var bootID: String
    /// Whether the kernel says the wall clock is synchronized (`adjtimex`, no `STA_UNSYNC`).
    public var synchronized: Bool

    public init(wall: Double, boot: Double, bootID: String, synchronized: Bool) {
        self.wall = wall
        self.boot = boot
        self.bootID = bootID
        self.synchronized = synchronized
    }
}

extension SystemClock {
    public func boot() -> Double { read().boot }
}
