/// The session as stored: tokens, their expiry, who logged in, and whether
/// it is still authorized. Its descriptions never show a token.
public struct PersistedSession: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    var accessToken: String?
    var refreshToken: String?
    var idToken: String?
    /// Seconds since 1970.
    public var accessExpiresAt: Double?
    public var claims: IDTokenClaims?
    public var account: Account?
    /// Why a stored account could not be read (its JSON no longer decodes);
    /// nil when there is none or it reads. Uploads then wait for a login
    /// rather than go to the configured base URL.
    public var accountProblem: String? = nil
    /// Why the session stopped being authorized; nil while it is.
    public var invalidated: AuthorizationEvent.Reason?
    public var updatedAt: Double
    /// Set while a refresh request is out (see `SessionStore.beginRefresh`).
    var refreshStartedAt: Double? = nil

    /// A usable refresh token, or an access token that has not expired, and
    /// no invalidation.
    public func isAuthorized(now: Double) -> Bool {
        guard invalidated == nil else { return false }
        if refreshToken != nil { return true }
        if accessToken != nil, let accessExpiresAt { return accessExpiresAt > now }
        return false
    }

    public var hasRefreshToken: Bool { refreshToken != nil }

    public var description: String {
        "session(subject: \(claims?.subject ?? "?"), account: \(account?.userID ?? "none"), "
            + "\(invalidated.map { "not authorized: \($0.rawValue)" } ?? "authorized"))"
    }

    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["summary": description]) }
}
