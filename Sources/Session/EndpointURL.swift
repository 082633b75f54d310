internal import Basics
internal import Glibc

/// The rule for every URL a token or secret travels to (issuer, backend,
/// and the endpoints a discovery document names): https anywhere, plain
/// http only to this machine.
public enum EndpointURL {
    /// Why `text` is not acceptable, or nil.
    public static func validate(_ text: String) -> String? {
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
