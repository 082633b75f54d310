/// What the session needs from the config file.
public struct SessionConfiguration: Sendable, Equatable {
    public var issuer: String
    public var clientID: String
    /// The confidential client's secret, read from `ClientSecretFile`; nil for a public client.
    public var clientSecret: String?
    public var scopes: [String]
    /// `[Backend] BaseURL`, used until the account names one.
    public var backendBaseURL: String
    /// Refresh this long before the access token expires.
    public var refreshMargin: Double = 30
    /// Automatic refreshes are at least this far apart (seconds), or half
    /// the token's lifetime when that is shorter.
    public var minimumRefreshInterval: Double = 30

    public init(issuer: String, clientID: String, clientSecret: String? = nil, scopes: [String] = ["openid"], backendBaseURL: String = "") {
        self.issuer = issuer
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.scopes = scopes
        self.backendBaseURL = backendBaseURL
    }
}
