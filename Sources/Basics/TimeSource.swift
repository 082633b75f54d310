/// How far a sample's wall-clock time can be trusted (the wire's `time_source`).
public enum TimeSource: String, Sendable, Equatable, Codable {
    /// From the receiver's time, carried forward on the boot clock.
    case gnss
    /// The system clock, which the kernel says is synchronized (timesyncd, chrony).
    case ntp
    /// The system clock as it is: on a Pi with no RTC, maybe 1970 or the last shutdown.
    case unsynced
}
