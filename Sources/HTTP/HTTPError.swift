/// Why a request got no HTTP response. Messages name the URL without its
/// query and never include headers or bodies.
public enum HTTPError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The TLS handshake failed: an untrusted or mismatched certificate,
    /// or a CA file that cannot be read. Verification is never turned off.
    case tls(url: String, detail: String)
    case connection(url: String, detail: String)
    case timedOut(url: String)
    case invalidRequest(url: String, detail: String)

    public var description: String {
        switch self {
        case .tls(let url, let detail): "TLS verification failed for \(url): \(detail)"
        case .connection(let url, let detail): "cannot reach \(url): \(detail)"
        case .timedOut(let url): "no answer from \(url) in time"
        case .invalidRequest(let url, let detail): "bad request to \(url): \(detail)"
        }
    }
}
