internal import Location

/// Checks an issuer or backend URL: https anywhere, plain http only to a
/// loopback host, since tokens travel on it.
enum EndpointURL {
    static func validate(_ text: String) -> String? {
        let lower = text.lowercased()
        let scheme: String
        if lower.hasPrefix("https://") { scheme = "https" } else if lower.hasPrefix("http://") { scheme = "http" } else {
            return "must be an https:// URL"
        }
        let authority = text.dropFirst(scheme.count + 3).prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard !authority.contains("@"), let (host, _) = parseHostPort(String(authority), defaultPort: scheme == "https" ? 443 : 80) else {
            return "has no valid host"
        }
        if scheme == "http" && !isLoopback(host) {
            return "must use https (plain http is allowed only for loopback addresses)"
        }
        return nil
    }

    static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }
}
