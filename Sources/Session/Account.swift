/// `GET /v1/account`: who is logged in, and where their fleet API lives.
public struct Account: Sendable, Equatable, Codable {
    public var userID: String
    public var vehicleID: String
    public var apiBaseURL: String

    enum CodingKeys: String, CodingKey {
        case userID = "user_id", vehicleID = "vehicle_id", apiBaseURL = "api_base_url"
    }

    public init(userID: String, vehicleID: String, apiBaseURL: String) {
        self.userID = userID
        self.vehicleID = vehicleID
        self.apiBaseURL = apiBaseURL
    }
}
