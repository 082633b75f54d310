/// A sample the recorder wants committed: its kind, time, trip and fields
/// (JSON members). The sink assigns the sequence number.
public struct RecordedSample: Sendable, Equatable {
    public enum Kind: String, Sendable, Equatable {
        case fix, beacon, sensor, event
    }

    public var kind: Kind
    public var time: Double
    public var tripID: String?
    public var fields: String
    /// For a trip's start, resumption and end: what the detector decided.
    public var tripAction: TripDetector.Action?

    public init(kind: Kind, time: Double, tripID: String?, fields: String, tripAction: TripDetector.Action? = nil) {
        self.kind = kind
        self.time = time
        self.tripID = tripID
        self.fields = fields
        self.tripAction = tripAction
    }
}
