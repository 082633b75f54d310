/// A D-Bus match rule for signals (`type='signal',sender=…,interface=…`).
///
/// The bus uses the rule to route signals to this connection; the connection
/// applies it again to hand each signal only to the streams that asked for it.
public struct MatchRule: Sendable, Hashable {
    public var sender: String?
    public var interface: String?
    public var member: String?
    public var path: String?
    /// Matches `path` itself and every object below it.
    public var pathNamespace: String?
    /// Matches the first argument when it is a string.
    public var arg0: String?

    public init(
        sender: String? = nil, interface: String? = nil, member: String? = nil,
        path: String? = nil, pathNamespace: String? = nil, arg0: String? = nil
    ) {
        self.sender = sender
        self.interface = interface
        self.member = member
        self.path = path
        self.pathNamespace = pathNamespace
        self.arg0 = arg0
    }

    /// The rule in the bus's text form, for `AddMatch`.
    public var text: String {
        var parts = ["type='signal'"]
        for (key, value) in [
            ("sender", sender), ("interface", interface), ("member", member),
            ("path", path), ("path_namespace", pathNamespace), ("arg0", arg0),
        ] {
            if let value { parts.append("\(key)='\(value.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''"))'") }
        }
        return parts.joined(separator: ",")
    }

    /// Whether `message` satisfies the rule.
    ///
    /// A well-known `sender` name cannot be compared here (signals carry the
    /// unique name), so only unique senders (`:1.42`) are checked locally; the
    /// bus has already applied the well-known one.
    public func matches(_ message: DBusMessage) -> Bool {
        guard message.kind == .signal else { return false }
        return matches(SignalHeader(message))
    }

    /// As `matches(_:)`, on header fields read once for all subscriptions.
    func matches(_ message: SignalHeader) -> Bool {
        if let interface, message.interface != interface { return false }
        if let member, message.member != member { return false }
        if let path, message.path != path { return false }
        if let pathNamespace {
            guard let p = message.path else { return false }
            let inside = p == pathNamespace || pathNamespace == "/"
                || (p.hasPrefix(pathNamespace) && p.utf8.dropFirst(pathNamespace.utf8.count).first == UInt8(ascii: "/"))
            if !inside { return false }
        }
        if let sender, sender.hasPrefix(":"), message.message.sender != sender { return false }
        if let arg0, message.firstString != arg0 { return false }
        return true
    }
}

/// A signal's routing fields, read from libdbus once per message rather than
/// once per subscription; the first argument only if a rule asks for it.
struct SignalHeader {
    let message: DBusMessage
    let interface: String?
    let member: String?
    let path: String?

    init(_ message: DBusMessage) {
        self.message = message
        interface = message.interface
        member = message.member
        path = message.path
    }

    var firstString: String? { message.firstString }
}
