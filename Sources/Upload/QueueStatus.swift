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

    /// An empty queue.
    public static let empty = QueueStatus(depth: 0, oldest: nil, bytes: 0, deadLetters: 0, lastSuccess: nil, lastError: nil)
}
