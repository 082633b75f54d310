public import Basics
public import Vocabulary

/// One recorded sample, as the recorder commits it to the outbox.
public struct Sample: Sendable, Equatable {
    /// Seconds since 1970, UTC.
    public var time: Double
    public var tripID: TripID?
    public var payload: SamplePayload
    /// How far `time` can be trusted.
    public var timeSource: TimeSource
    /// The boot clock's reading and its boot, so an `unsynced` time can be
    /// re-stamped once the clock is trusted.
    public var boot: (id: String, time: Double)?

    public init(time: Double, tripID: TripID? = nil, payload: SamplePayload, timeSource: TimeSource = .ntp,
                boot: (id: String, time: Double)? = nil) {
        self.time = time
        self.tripID = tripID
        self.payload = payload
        self.timeSource = timeSource
        self.boot = boot
    }

    public var kind: SampleKind { payload.kind }

    public static func == (lhs: Sample, rhs: Sample) -> Bool {
        lhs.time == rhs.time && lhs.tripID == rhs.tripID && lhs.payload == rhs.payload
            && lhs.timeSource == rhs.timeSource && lhs.boot?.id == rhs.boot?.id && lhs.boot?.time == rhs.boot?.time
    }
}
