/// One HTTP request. Header values may hold credentials (`Authorization`);
/// nothing in this module ever logs or prints them.
public struct HTTPRequest: Sendable {
    public var method: String
    public var url: String
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]?
    public var timeout: Duration

    public init(method: String = "GET", url: String, headers: [(name: String, value: String)] = [], body: [UInt8]? = nil,
                timeout: Duration = .seconds(30)) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }

    /// A form-encoded POST (`application/x-www-form-urlencoded`).
    public static func form(_ url: String, _ fields: [(String, String)], headers: [(name: String, value: String)] = []) -> HTTPRequest {
        let body = fields.map { "\(formEncode($0.0))=\(formEncode($0.1))" }.joined(separator: "&")
        return HTTPRequest(method: "POST", url: url, headers: headers + [("Content-Type", "application/x-www-form-urlencoded")],
                           body: Array(body.utf8))
    }

    /// Percent-encoding for form values: unreserved characters pass, space is `+`.
    static func formEncode(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            case UInt8(ascii: " "):
                out += "+"
            default:
                let hex = String(byte, radix: 16, uppercase: true)
                out += "%" + (byte < 16 ? "0" : "") + hex
            }
        }
        return out
    }

    /// The URL without query or fragment: safe for messages.
    public var redactedURL: String {
        String(url.prefix { $0 != "?" && $0 != "#" })
    }
}

extension HTTPRequest {
    /// RFC 6749 §2.3.1: client id and secret are form-encoded before they
    /// go into a Basic header.
    public static func formEncodeForBasic(_ text: String) -> String { formEncode(text) }
}
