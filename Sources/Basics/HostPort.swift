/// `host:port`, `[v6]:port` or `host`.
public func parseHostPort(_ text: String, defaultPort: Int) -> (String, Int)? {
    var host = text
    var portText: Substring?
    if text.hasPrefix("[") {
        guard let close = text.firstIndex(of: "]") else { return nil }
        host = String(text[text.index(after: text.startIndex)..<close])
        let rest = text[text.index(after: close)...]
        if !rest.isEmpty {
            guard rest.hasPrefix(":") else { return nil }
            portText = rest.dropFirst()
        }
    } else if let colon = text.lastIndex(of: ":") {
        host = String(text[..<colon])
        portText = text[text.index(after: colon)...]
    }
    let port = portText.map { Int($0) } ?? defaultPort
    guard !host.isEmpty, !host.contains("/"), let port, (1...65535).contains(port) else { return nil }
    return (host, port)
}
