/// Maps the boot clock, on which trips, presence and gaps are timed, to
/// wall-clock times for samples, and says how far each can be trusted:
/// the synchronized system clock first, then the last GNSS fix's time
/// carried forward on the boot clock, else the system clock as it is.
public struct TimeBase: Sendable, Equatable {
    /// The receiver's UTC minus the boot time at which its fix arrived.
    public private(set) var gnssOffset: Double?

    public init() {}

    /// A fix with the receiver's time (seconds since 1970) arrived at `boot`.
    public mutating func gnss(time: Double, atBoot boot: Double) {
        guard time.isFinite, time > 0 else { return }
        gnssOffset = time - boot
    }

    /// The wall time of `boot` (a boot-clock time of this boot), and its source.
    public func wall(at boot: Double, _ reading: ClockReading) -> (time: Double, source: TimeSource) {
        if reading.synchronized { return (boot + reading.wall - reading.boot, .ntp) }
        if let gnssOffset { return (boot + gnssOffset, .gnss) }
        return (boot + reading.wall - reading.boot, .unsynced)
    }
}
