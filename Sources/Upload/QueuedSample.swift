public import Basics
public import Telemetry
public import Vocabulary

/// A sample in the outbox, with its per-device sequence number and its
/// payload as the JSON members it was encoded to when committed.
public struct QueuedSample: Sendable, Equatable {
    public var seq: Int64
    /// Seconds since 1970, UTC.
    public var time: Double
    public var tripID: TripID?
    public var kind: SampleKind
    /// `SampleEncoder`'s members, without braces.
    public var fields: String
    public var timeSource: TimeSource
    /// Size of its JSON in the request body.
    public var bytes: Int

    public init(seq: Int64, time: Double, tripID: TripID?, kind: SampleKind, fields: String, timeSource: TimeSource = .ntp, bytes: Int = 0) {
        self.seq = seq
        self.time = time
        self.tripID = tripID
        self.kind = kind
        self.fields = fields
        self.timeSource = timeSource
        self.bytes = bytes
    }

    /// A sample about to be committed, encoded once.
    public init(seq: Int64, sample: Sample) {
        self.init(seq: seq, time: sample.time, tripID: sample.tripID, kind: sample.kind, fields: SampleEncoder.members(sample.payload),
                  timeSource: sample.timeSource)
        bytes = Batch.size(of: self)
    }
}
