public import HTTP

/// Why a session operation failed. Messages never include a token or secret.
public enum SessionError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No response: network, TLS (see `HTTPError.tls`) or timeout.
    case unreachable(HTTPError)
    /// The provider or backend answered with an error status. `error` is the
    /// OAuth error code when the body had one (glewlwyd often sends none).
    case refused(url: String, status: Int, error: String?)
    /// A response that is not what the protocol promises.
    case malformed(url: String, detail: String)
    /// The device code expired before the user approved it.
    case deviceCodeExpired
    /// The user (or the provider) denied the device login.
    case accessDenied
    case cancelled
    case notLoggedIn
    /// The session exists but is no longer authorized (see the reason).
    case notAuthorized(AuthorizationEvent.Reason)
    case invalidIDToken(String)
    case configuration(String)

    public var description: String {
        switch self {
        case .unreachable(let error): "\(error)"
        case .refused(let url, let status, let error): "\(url) answered \(status)\(error.map { " (\($0))" } ?? "")"
        case .malformed(let url, let detail): "unexpected answer from \(url): \(detail)"
        case .deviceCodeExpired: "the login code expired before it was approved; run waymark login again"
        case .accessDenied: "the login was denied"
        case .cancelled: "login cancelled"
        case .notLoggedIn: "not logged in; run waymark login"
        case .notAuthorized(let reason): "the session is no longer authorized (\(reason.rawValue)); run waymark login"
        case .invalidIDToken(let detail): "the ID token is not valid: \(detail)"
        case .configuration(let detail): detail
        }
    }
}
