/// The endpoints of an OIDC provider, from its discovery document.
public struct ProviderMetadata: Sendable, Equatable, Decodable {
    public var issuer: String
    public var tokenEndpoint: String
    public var deviceAuthorizationEndpoint: String?
    public var revocationEndpoint: String?
    public var userinfoEndpoint: String?

    enum CodingKeys: String, CodingKey {
        case issuer
        case tokenEndpoint = "token_endpoint"
        case deviceAuthorizationEndpoint = "device_authorization_endpoint"
        case revocationEndpoint = "revocation_endpoint"
        case userinfoEndpoint = "userinfo_endpoint"
    }
}
