internal import Basics
internal import FoundationEssentials

/// A successful token endpoint answer (RFC 6749 §5.1). Its descriptions
/// never show a token.
public struct TokenResponse: Sendable, Decodable, CustomStringConvertible {
    var accessToken: String
    var tokenType: String
    /// `expires_in` as sent: a number, or a numeric string (some providers).
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

    /// Nil for a body that is not a token answer.
    public static func decode(_ body: [UInt8]) -> TokenResponse? {
        try? OutsideJSON.decode(TokenResponse.self, from: body)
    }

    public var description: String { "token answer (\(tokenType), lifetime \(lifetime.map { "\($0) s" } ?? "unknown"))" }

    public init(from decoder: any Decoder) throws {
        let keys = try decoder.container(keyedBy: CodingKeys.self)
        accessToken = try keys.decode(String.self, forKey: .accessToken)
        tokenType = try keys.decode(String.self, forKey: .tokenType)
        expiresIn = (try? keys.decodeIfPresent(Double.self, forKey: .expiresIn))
            ?? (try? keys.decodeIfPresent(String.self, forKey: .expiresIn)).flatMap { $0.flatMap(Double.init) }
        refreshToken = try keys.decodeIfPresent(String.self, forKey: .refreshToken)
        idToken = try keys.decodeIfPresent(String.self, forKey: .idToken)
        scope = try? keys.decodeIfPresent(String.self, forKey: .scope)
    }

    /// The access token's lifetime in seconds, clamped to ten years; nil
    /// when absent, zero, negative or not a number: the token is then used
    /// until the backend refuses it.
    public var lifetime: Double? {
        guard let expiresIn, expiresIn.isFinite, expiresIn > 0 else { return nil }
        return min(expiresIn, Self.longestLifetime)
    }

    static let longestLifetime = 10 * 365 * 86_400.0
}
