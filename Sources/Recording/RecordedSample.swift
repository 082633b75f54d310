public import Telemetry
public import Vocabulary

/// A sample the recorder wants committed: its time on the boot clock, trip
/// and payload. The sink stamps the wall time and assigns the sequence number.
public struct RecordedSample: Sendable, Equatable {
    public var time: Double
    public var tripID: TripID?
    public var payload: SamplePayload
    /// For a trip's start, resumption and end: what the detector decided.
    public var tripAction: TripDetector.Action?

    public init(time: Double, tripID: TripID?, payload: SamplePayload, tripAction: TripDetector.Action? = nil) {
        self.time = time
        self.tripID = tripID
        self.payload = payload
        self.tripAction = tripAction
    }

    public var kind: SampleKind { payload.kind }
}
