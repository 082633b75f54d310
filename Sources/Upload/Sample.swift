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

    public init(time: Double, tripID: String? = nil, kind: Kind, fields: String) {
        self.time = time
        self.tripID = tripID
        self.kind = kind
        self.fields = fields
    }
}
