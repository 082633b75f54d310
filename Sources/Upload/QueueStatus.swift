/// What `waymark queue` shows.
public struct QueueStatus: Sendable, Equatable, Encodable {
    public var depth: Int
    /// Seconds since 1970 of the oldest queued sample.
    public var oldest: Double?
    /// JSON bytes queued.
    public var bytes: Int
    public var deadLetters: Int
    public var lastSuccess: Double?
    public var lastError: String?
}
