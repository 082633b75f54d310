/// Batching, backoff and the size cap. Timers run on the uploader's clock.
/// The settings a user can change have no defaults here: they come from
/// `[Upload]` in the gateway's configuration.
public struct UploadOptions: Sendable, Equatable {
    /// A batch holds at most this many samples…
    public var batchCount: Int
    /// …and this many bytes of JSON (before gzip).
    public var batchBytes: Int
    /// A partial batch goes once its oldest sample is this old.
    public var batchAge: Duration
    public var retryBase: Duration = .seconds(1)
    public var retryCap: Duration
    /// The outbox keeps at most this many samples; older ones are dropped, and recorded.
    public var maxQueuedSamples = 2_000_000
    /// …and at most this many bytes of sample JSON (`[Upload] MaxQueueBytes`).
    public var maxQueuedBytes: Int
    public var requestTimeout: Duration = .seconds(30)

    public init(batchCount: Int, batchBytes: Int, batchAge: Duration, retryCap: Duration, maxQueuedBytes: Int) {
        self.batchCount = batchCount
        self.batchBytes = batchBytes
        self.batchAge = batchAge
        self.retryCap = retryCap
        self.maxQueuedBytes = maxQueuedBytes
    }
}
