/// A response: status, headers (names lower-cased, the last of a repeated
/// header wins) and the body.
public struct HTTPResponse: Sendable {
    public var status: Int
    public var headers: [String: String]
    public var body: [UInt8]

    public init(status: Int, headers: [String: String] = [:], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    public var isSuccess: Bool { (200..<300).contains(status) }

    /// The start of the body as text, for error messages about a refusal.
    /// Callers only quote bodies of error responses, which carry no tokens.
    public var excerpt: String {
        String(decoding: body.prefix(200), as: UTF8.self).filter { !$0.isNewline }
    }
}
