public import Basics

/// One recorded sample, as queued for upload.
public struct Sample: Sendable, Equatable {
    public enum Kind: String, Sendable, Equatable, Codable {
        case fix, beacon, sensor, event
    }

    /// Seconds since 1970, UTC.
    public var time: Double
    public var tripID: String?
    public var kind: Kind
    /// The kind's own fields, as a JSON object's members without braces
    /// (`"lat":48.2,"lon":8.4`), encoded once when recorded.
    public var fields: String
    /// How far `time` can be trusted.
    public var timeSource: TimeSource
    /// The boot clock's reading and its boot, so an `unsynced` time can be
    /// re-stamped once the clock is trusted.
    public var boot: (id: String, time: Double)?

    public init(time: Double, tripID: String? = nil, kind: Kind, fields: String, timeSource: TimeSource = .ntp,
                boot: (id: String, time: Double)? = nil) {
        self.time = time
        self.tripID = tripID
        self.kind = kind
        self.fields = fields
        self.timeSource = timeSource
        self.boot = boot
    }

    public static func == (lhs: Sample, rhs: Sample) -> Bool {
        lhs.time == rhs.time && lhs.tripID == rhs.tripID && lhs.kind == rhs.kind && lhs.fields == rhs.fields
            && lhs.timeSource == rhs.timeSource && lhs.boot?.id == rhs.boot?.id && lhs.boot?.time == rhs.boot?.time
    }
}
