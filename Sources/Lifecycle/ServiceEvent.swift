/// What a `ServiceGroup` did, for logs and tests.
public enum ServiceEvent: Sendable, Equatable {
    case started(String)
    case failed(String, description: String)
    case restarting(String, after: Duration)
    case stopped(String)
}
