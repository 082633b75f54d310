/// Batching, backoff and the size cap. Timers run on the uploader's clock.
public struct UploadOptions: Sendable, Equatable {
    /// A batch holds at most this many samples…
    public var batchCount = 500
    /// …and this many bytes of JSON (before gzip).
    public var batchBytes = 512 * 1024
    /// A partial batch goes once its oldest sample is this old.
    public var batchAge: Duration = .seconds(10)
    public var retryBase: Duration = .seconds(1)
    public var retryCap: Duration = .seconds(300)
    /// The outbox keeps at most this many samples; older ones are dropped, and recorded.
    public var maxQueuedSamples = 2_000_000
    /// …and at most this many bytes of sample JSON (`[Upload] MaxQueueBytes`).
    public var maxQueuedBytes = 256 << 20
    public var requestTimeout: Duration = .seconds(30)

    public init() {}
}
