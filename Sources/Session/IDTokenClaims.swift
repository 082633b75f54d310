internal import Basics
internal import FoundationEssentials

/// The claims Waymark reads from the ID token. The token came straight from
/// the token endpoint over TLS, so its issuer, audience and expiry are
/// checked but its signature is not (OIDC Core §3.1.3.7, item 6).
public struct IDTokenClaims: Sendable, Equatable, Codable {
    public var subject: String
    public var name: String?
    public var email: String?
    public var issuer: String
    public var audience: [String]
    /// The authorized party, required when the token names several audiences.
    public var authorizedParty: String?
    /// Seconds since 1970.
    public var expiresAt: Double

    enum CodingKeys: String, CodingKey {
        case subject = "sub", name, email, issuer = "iss", audience = "aud", expiresAt = "exp", authorizedParty = "azp"
    }

    public init(from decoder: any Decoder) throws {
        let keys = try decoder.container(keyedBy: CodingKeys.self)
        subject = try keys.decode(String.self, forKey: .subject)
        name = try? keys.decodeIfPresent(String.self, forKey: .name)
        email = try? keys.decodeIfPresent(String.self, forKey: .email)
        issuer = try keys.decode(String.self, forKey: .issuer)
        if let single = try? keys.decode(String.self, forKey: .audience) {
            audience = [single]
        } else {
            audience = try keys.decode([String].self, forKey: .audience)
        }
        expiresAt = try keys.decode(Double.self, forKey: .expiresAt)
        authorizedParty = try? keys.decodeIfPresent(String.self, forKey: .authorizedParty)
    }

    /// Reads the payload of a compact JWS and checks `iss`, `aud` and `exp`.
    public init(token: String, issuer: String, clientID: String, now: Double) throws(SessionError) {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let payload = Self.base64URL(parts[1]) else { throw .invalidIDToken("not a JWT") }
        do {
            self = try OutsideJSON.decode(IDTokenClaims.self, from: payload)
        } catch {
            throw .invalidIDToken("claims missing or of the wrong type")
        }
        guard self.issuer == issuer else { throw .invalidIDToken("issuer \(self.issuer) is not \(issuer)") }
        guard audience.contains(clientID) else { throw .invalidIDToken("audience does not include \(clientID)") }
        // OIDC Core §3.1.3.7 items 4–5: several audiences need an azp, and it must be us.
        if audience.count > 1 {
            guard let authorizedParty else { throw .invalidIDToken("several audiences and no azp") }
            guard authorizedParty == clientID else { throw .invalidIDToken("azp \(authorizedParty) is not \(clientID)") }
        } else if let authorizedParty, authorizedParty != clientID {
            throw .invalidIDToken("azp \(authorizedParty) is not \(clientID)")
        }
        guard expiresAt > now - 60 else { throw .invalidIDToken("expired") }
    }

    static func base64URL(_ text: Substring) -> Data? {
        var base64 = String(text.map { $0 == "-" ? "+" : $0 == "_" ? "/" : $0 })
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64)
    }
}
