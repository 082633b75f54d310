public import HTTP

/// What the uploader needs from the session: whether to send at all, and a
/// way to send with a fresh bearer token (one refresh and retry on a 401).
/// The gateway implements it with its session manager.
public protocol UploadAuthorization: Sendable {
    var isAuthorized: Bool { get async }
    func authorized(_ build: @Sendable (String) -> HTTPRequest) async throws(UploadAuthorizationError) -> HTTPResponse
}
