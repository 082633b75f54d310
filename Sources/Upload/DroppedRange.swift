/// Samples the size cap removed before they were uploaded: exactly which.
public struct DroppedRange: Sendable, Equatable {
    public var firstSeq: Int64
    public var lastSeq: Int64
    /// Seconds since 1970 of the first and last dropped sample.
    public var firstTime: Double
    public var lastTime: Double
    public var count: Int
}
