/// A successful token endpoint answer (RFC 6749 §5.1).
struct TokenResponse: Sendable, Decodable {
    var accessToken: String
    var tokenType: String
    var expiresIn: Double?
    var refreshToken: String?
    var idToken: String?
    var scope: String?

    enum CodingKeys: String, CodingKey {
        case accessToken = "access_token"
        case tokenType = "token_type"
        case expiresIn = "expires_in"
        case refreshToken = "refresh_token"
        case idToken = "id_token"
        case scope
    }
}

/// An error answer (RFC 6749 §5.2), when there is a body at all.
struct OAuthErrorResponse: Sendable, Decodable {
    var error: String
}
