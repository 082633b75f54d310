/// A live signal subscription; `cancel()` removes it and its match rule.
public final class SignalSubscription: Sendable {
    private let connection: DBusConnection
    private let id: UInt64
    private let rule: MatchRule

    init(connection: DBusConnection, id: UInt64, rule: MatchRule) {
        self.connection = connection
        self.id = id
        self.rule = rule
    }

    public func cancel() { connection.unsubscribe(id, rule: rule) }

    /// A subscription nobody holds any more is cancelled: its match rule
    /// never outlives it on the bus.
    deinit { cancel() }
}
