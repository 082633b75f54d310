/// Where readings come from: the kernel, or a test that moves the wall clock by years.
public protocol SystemClock: Sendable {
    func read() -> ClockReading
    /// The boot clock alone, cheaper than a whole reading (no `adjtimex`).
    func boot() -> Double
}
