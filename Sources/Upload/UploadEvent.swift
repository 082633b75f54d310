/// What the uploader did, for logs, the event table and tests.
public enum UploadEvent: Sendable, Equatable {
    case uploaded(first: Int64, last: Int64)
    /// A permanent refusal: the batch is in `dead_letter` with the status.
    case deadLettered(first: Int64, last: Int64, status: Int)
    /// A temporary failure; the next try is after `delay`.
    case retrying(status: Int?, delay: Duration)
    /// Nothing is sent until the next login.
    case waitingForLogin
    /// The size cap removed these samples before upload.
    case dataDropped(DroppedRange)
    /// The size cap could not be enforced (the store refused the write):
    /// the queue may grow past it until the next drain tries again.
    case capNotEnforced(String)
    /// The queue is empty.
    case drained
}
