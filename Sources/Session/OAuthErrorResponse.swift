/// An error answer (RFC 6749 §5.2), when there is a body at all.
struct OAuthErrorResponse: Sendable, Decodable {
    var error: String
}
