internal import Basics
internal import Glibc

/// The rule for every URL a token or secret travels to (issuer, backend,
/// and the endpoints a discovery document names): https anywhere, plain
/// http only to this machine.
public enum EndpointURL {
    /// Why `text` is not acceptable, or nil.
    public static func validate(_ text: String) -> String? {
        if case .failure(let refusal) = parse(text, secure: "https", plain: "http", securePort: 443, plainPort: 80) { return refusal.message }
        return nil
    }

    /// `text` as `SECURE://HOST[:PORT]…`, or `PLAIN://…` to this machine only
    /// (the rule for HTTP, applied to any pair of schemes, MQTT's too):
    /// whether it is the secure scheme, the host and the port.
    public static func parse(
        _ text: String, secure: String, plain: String, securePort: Int, plainPort: Int
    ) -> Result<(secure: Bool, host: String, port: Int), Refusal> {
        let lower = text.lowercased()
        let isSecure: Bool
        if lower.hasPrefix(secure + "://") { isSecure = true } else if lower.hasPrefix(plain + "://") { isSecure = false } else {
            return .failure(Refusal(message: "must be an \(secure):// URL"))
        }
        let authority = text.dropFirst((isSecure ? secure : plain).count + 3).prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard !authority.contains("@"), let (host, port) = parseHostPort(String(authority), defaultPort: isSecure ? securePort : plainPort) else {
            // Say which half is wrong: a good host with a bad port is about the port.
            if !authority.contains("@"), let colon = authority.lastIndex(of: ":"), parseHostPort(String(authority[..<colon]), defaultPort: 1) != nil {
                return .failure(Refusal(message: "has no valid port (a whole number from 1 to 65535), got \(String(authority[authority.index(after: colon)...]).debugDescription)"))
            }
            return .failure(Refusal(message: "has no valid host"))
        }
        if !isSecure && !isLoopback(host) {
            return .failure(Refusal(message: "must use \(secure) (plain \(plain) is allowed only for loopback addresses)"))
        }
        return .success((isSecure, host, port))
    }

    /// Why a URL is refused.
    public struct Refusal: Error, Equatable {
        public var message: String
    }

    /// `localhost`, an IPv4 literal in 127.0.0.0/8, or `::1`, as `inet_pton`
    /// reads them: `127.0.0.1.evil.example` is a name, not a loopback address.
    public static func isLoopback(_ host: String) -> Bool {
        if host == "localhost" { return true }
        var v4 = in_addr()
        if inet_pton(AF_INET, host, &v4) == 1 { return UInt32(bigEndian: v4.s_addr) >> 24 == 127 }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, host, &v6) == 1 else { return false }
        return withUnsafeBytes(of: &v6) { $0.prefix(15).allSatisfy { $0 == 0 } && $0[15] == 1 }
    }
}
