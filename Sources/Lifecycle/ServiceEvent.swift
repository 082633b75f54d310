/// What a `ServiceGroup` did, for logs and tests.
public enum ServiceEvent: Sendable, Equatable {
    /// The trigger fired (its value, such as a signal's number): shutdown begins.
    case shuttingDown(String)
    case started(String)
    case failed(String, description: String)
    case restarting(String, after: Duration)
    case stopped(String)
    /// Asked to stop, it had not after this long: the group went on without it.
    case heldUp(String, after: Duration)
}
