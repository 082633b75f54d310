/// A pending device login (RFC 8628 §3.2): what to show the user, and what to poll with.
public struct DeviceCode: Sendable, Equatable, Decodable {
    public var deviceCode: String
    public var userCode: String
    public var verificationURI: String
    public var verificationURIComplete: String?
    public var expiresIn: Int
    /// Seconds between polls; 5 when the provider does not say.
    public var interval: Int?

    enum CodingKeys: String, CodingKey {
        case deviceCode = "device_code"
        case userCode = "user_code"
        case verificationURI = "verification_uri"
        case verificationURIComplete = "verification_uri_complete"
        case expiresIn = "expires_in"
        case interval
    }
}
