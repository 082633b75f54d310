/// What a `ServiceGroup` does when a service's `start` or `run` throws.
public enum FailurePolicy: Sendable, Equatable {
    /// Shut every service down, in reverse order, and end the group with the error.
    case shutdownGroup
    /// Start the service again after a capped, jittered backoff.
    case restart(base: Duration, cap: Duration)
    /// Report it and let the others go on without it.
    case report
}
