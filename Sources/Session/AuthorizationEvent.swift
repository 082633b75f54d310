/// What happened to the session, as one typed stream.
public enum AuthorizationEvent: Sendable, Equatable {
    case authorized
    /// New tokens: a good moment to fetch settings and commands too.
    case refreshed
    case notAuthorized(Reason)
    case remoteSettingsUpdated
    case policyUpdated

    public enum Reason: String, Sendable, Equatable, Codable {
        /// The provider refused the refresh token (revoked, expired, replayed).
        case refreshRejected
        /// A one-use refresh token was refused after a process died with a
        /// refresh in flight: the provider had likely rotated it already.
        case refreshRaceLost
        case revoked
        case expired
        /// A remote wipe: tokens and local data are gone.
        case wiped
        /// A remote lock: data kept, recording stops until the next login.
        case lockedOut
        case blocked
        case passwordChangeRequired
        /// `waymark logout`.
        case loggedOut
    }
}
