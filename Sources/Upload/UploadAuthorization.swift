public import HTTP
public import Session

/// What the uploader needs from the session: whether to send at all, and a
/// way to send with a fresh bearer token (one refresh and retry on a 401).
public protocol UploadAuthorization: Sendable {
    var isAuthorized: Bool { get async }
    func authorized(_ build: @Sendable (String) -> HTTPRequest) async throws(SessionError) -> HTTPResponse
}

extension SessionManager: UploadAuthorization {}
