/// A D-Bus match rule for signals (`type='signal',sender=…,interface=…`).
///
/// The bus uses the rule to route signals to this connection; the connection
/// applies it again to hand each signal only to the streams that asked for it.
public struct MatchRule: Sendable, Hashable {
    public var sender: String?
    public var interface: String?
    public var member: String?
    public var path: String?
    /// Matches `path` itself and every object below it. dbus-daemon (1.14)
    /// leaves it out when it compares rules for `RemoveMatch`: of two rules
    /// that differ only here, removing one may remove the other.
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
        if let interface, !SignalHeader.same(message.interface, interface) { return false }
        if let member, !SignalHeader.same(message.member, member) { return false }
        if let path, !SignalHeader.same(message.path, path) { return false }
        if let pathNamespace, !message.isInside(pathNamespace) { return false }
        if let sender, sender.hasPrefix(":"), message.message.sender != sender { return false }
        if let arg0, !SignalHeader.same(message.firstArgument, arg0) { return false }
        return true
    }
}
