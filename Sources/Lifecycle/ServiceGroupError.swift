/// Why a `ServiceGroup` ended other than by its shutdown trigger.
public enum ServiceGroupError: Error, Sendable, CustomStringConvertible {
    /// A service with `.shutdownGroup` failed; every service was shut down.
    case serviceFailed(name: String, description: String)

    public var description: String {
        switch self {
        case .serviceFailed(let name, let description): "\(name) failed: \(description)"
        }
    }
}
