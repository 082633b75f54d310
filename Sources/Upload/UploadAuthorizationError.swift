/// Why an authorized request was not sent.
public enum UploadAuthorizationError: Error, Sendable, CustomStringConvertible {
    /// Not logged in, or no longer authorized: nothing is sent until the next login.
    case notAuthorized(String)
    /// No fresh token now (the provider or the network): the batch is retried later.
    case unavailable(String)

    public var description: String {
        switch self {
        case .notAuthorized(let detail), .unavailable(let detail): detail
        }
    }
}
