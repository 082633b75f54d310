/// Timers of a location reader. All run on the reader's injected clock.
public struct LocationOptions: Sendable, Equatable {
    /// Silence on an open connection after which it is probed, and after a
    /// second such period dropped (a half-open socket, a receiver gone quiet).
    /// From `[Location] NoDataTimeout` in the gateway's configuration.
    public var noDataTimeout: Duration
    /// Reconnect backoff: first delay cap and overall cap.
    public var retryBase: Duration = .milliseconds(500)
    public var retryCap: Duration = .seconds(30)
    /// Quiet after a report that closes the epoch it belongs to. Epochs
    /// otherwise close when the next one begins, which would hold back the
    /// last fix before the receiver stops talking.
    public var epochSettle: Duration = .milliseconds(300)
    /// Bound on a TCP connect.
    public var connectTimeout: Duration = .seconds(2)

    public init(noDataTimeout: Duration) {
        self.noDataTimeout = noDataTimeout
    }
}
