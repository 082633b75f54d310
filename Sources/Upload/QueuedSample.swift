/// A sample in the outbox, with its per-device sequence number.
public struct QueuedSample: Sendable, Equatable {
    public var seq: Int64
    public var sample: Sample
    /// Size of its JSON in the request body.
    public var bytes: Int

    public init(seq: Int64, sample: Sample, bytes: Int) {
        self.seq = seq
        self.sample = sample
        self.bytes = bytes
    }
}
