public import HTTP
public import Session
public import Upload

/// The uploader's seam, implemented by the session manager: a request sent
/// with a fresh token, and the session's errors sorted into "wait for a
/// login" and "try again later".
public struct SessionUploadAuthorization: UploadAuthorization {
    public let session: SessionManager

    public init(_ session: SessionManager) { self.session = session }

    public var isAuthorized: Bool { get async { await session.isAuthorized } }

    public func authorized(_ build: @Sendable (String) -> HTTPRequest) async throws(UploadAuthorizationError) -> HTTPResponse {
        do {
            return try await session.authorized(build)
        } catch {
            switch error {
            case .notAuthorized, .notLoggedIn: throw .notAuthorized(error.description)
            default: throw .unavailable(error.description)
            }
        }
    }
}
