/// A long-running part of the daemon. A `ServiceGroup` starts services one
/// at a time in order, then runs them all, and ends them in reverse order
/// by cancelling `run`.
public protocol Service: Sendable {
    /// For logs: "location", "uplink".
    var name: String { get }

    /// Brings the service up; the next service starts only after this
    /// returns, so a later service may rely on an earlier one.
    func start() async throws

    /// Does the service's work until the task is cancelled. Returning early
    /// ends the service; throwing is handled by its `FailurePolicy`.
    func run() async throws
}

extension Service {
    public func start() async throws {}
}
