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
        if reading.synchronized { return (boot + Self.systemOffset(reading), .ntp) }
        if let gnssOffset { return (boot + gnssOffset, .gnss) }
        return (boot + Self.systemOffset(reading), .unsynced)
    }

    /// The system clock's lead over the boot clock, to the millisecond: the
    /// two clocks are read one after the other, so the exact difference
    /// wanders by the gap between the reads, and two readings a moment
    /// apart (the daemon's and the one its capture holds) stamp alike.
    static func systemOffset(_ reading: ClockReading) -> Double {
        ((reading.wall - reading.boot) * 1000).rounded() / 1000
    }
}
