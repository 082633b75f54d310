public import Telemetry

/// What the location reader read and closed, in the order it did, for a
/// capture and for the recorder: replay closes the same epochs at the same
/// places, however late the reader's settle alarm rang.
public enum LocationTrace: Sendable, Equatable {
    /// A line as received, and the fixes whose epochs it closed (most close none).
    case line([UInt8], gpsd: Bool, closed: [Fix])
    /// The open epoch closed without a line: the settle alarm rang, the
    /// receiver fell silent, or the connection ended. `afterLastLine` times
    /// the fix from the last line: the settle time for the alarm, however
    /// late it rang, zero otherwise.
    case closed(Fix, afterLastLine: Duration)
}
