internal import CDBus
import Synchronization

extension DBusConnection {
    /// Signals matching `rule`, from the moment this returns.
    ///
    /// The local subscription is in place before the bus is asked to route the
    /// signals (`AddMatch`), so nothing the bus sends after the reply is lost.
    /// The stream finishes when the connection closes; dropping the stream
    /// removes the match.
    public func signals(
        matching rule: MatchRule,
        buffering: AsyncStream<DBusMessage>.Continuation.BufferingPolicy = .unbounded
    ) async throws(DBusError) -> AsyncStream<DBusMessage> {
        let (stream, continuation) = AsyncStream.makeStream(of: DBusMessage.self, bufferingPolicy: buffering)
        let subscription = try await subscribe(rule, deliver: { continuation.yield($0) }, finish: { continuation.finish() })
        continuation.onTermination = { _ in subscription.cancel() }
        return stream
    }

    /// Calls `handler` with each signal matching `rule`, on the connection's
    /// loop right after the dispatch that read it: no task hop per signal.
    /// It runs outside the connection's lock, so it may use this connection;
    /// it should be quick, since the loop waits for it. Cancel the returned
    /// subscription to stop.
    public func subscribe(
        _ rule: MatchRule, handler: @escaping @Sendable (DBusMessage) -> Void
    ) async throws(DBusError) -> SignalSubscription {
        try await subscribe(rule, deliver: handler, finish: {})
    }

    private func subscribe(
        _ rule: MatchRule, deliver: @escaping @Sendable (DBusMessage) -> Void, finish: @escaping @Sendable () -> Void
    ) async throws(DBusError) -> SignalSubscription {
        let id: UInt64? = lock.withLock { _ in
            guard isOpen else { return nil }
            nextSubscriptionID += 1
            subscriptions[nextSubscriptionID] = Subscription(rule: rule, deliver: deliver, finish: finish)
            return nextSubscriptionID
        }
        guard let id else { throw .disconnected }
        let subscription = SignalSubscription(connection: self, id: id, rule: rule)
        do {
            _ = try await call(DBusMessage.busCall("AddMatch", [.string(rule.text)]))
        } catch {
            subscription.cancel()
            throw error
        }
        return subscription
    }

    /// Removes a subscription and its match, off whatever thread ended it
    /// (which may be inside dispatch, holding the lock).
    func unsubscribe(_ id: UInt64, rule: MatchRule) {
        loop.async {
            let removed = self.lock.withLock { _ in self.subscriptions.removeValue(forKey: id) != nil }
            guard removed, self.isOpen, let message = try? DBusMessage.busCall("RemoveMatch", [.string(rule.text)]) else { return }
            dbus_message_set_no_reply(message.raw, 1)
            try? self.send(message)
        }
    }

    /// The current owner of a bus name (`GetNameOwner`), or nil when nobody owns it.
    public func owner(of name: String) async throws(DBusError) -> String? {
        do {
            return try await call(DBusMessage.busCall("GetNameOwner", [.string(name)])).firstString
        } catch .remote(.nameHasNoOwner, _) {
            return nil
        }
    }

    /// The owner of `name` now and after every change: the first element is the
    /// current owner (nil when nobody owns it), then one element per
    /// `NameOwnerChanged`. Subscribes before asking, so no change is missed.
    public func ownerChanges(of name: String) async throws(DBusError) -> AsyncStream<String?> {
        let changes = try await signals(matching: MatchRule(
            sender: "org.freedesktop.DBus", interface: "org.freedesktop.DBus",
            member: "NameOwnerChanged", path: "/org/freedesktop/DBus", arg0: name))
        let current = try await owner(of: name)
        return AsyncStream { continuation in
            continuation.yield(current)
            // The stream's own relay, as long as its reader keeps it.
            let task = Task {
                for await signal in changes {
                    guard let args = try? signal.arguments(), args.count == 3, let owner = args[2].string else { continue }
                    continuation.yield(owner.isEmpty ? nil : owner)
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// Asks the bus for a well-known name (`RequestName`), without queueing.
    public func requestName(_ name: String) async throws(DBusError) {
        // DBUS_NAME_FLAG_DO_NOT_QUEUE
        let reply = try await call(DBusMessage.busCall("RequestName", [.string(name), .uint32(4)])).arguments()
        // 1: primary owner, 4: already the owner.
        guard let code = reply.first?.int64, code == 1 || code == 4 else {
            throw .remote(.failed, message: "the name \(name) is owned by another connection")
        }
    }

    static let filterTrampoline: DBusHandleMessageFunction = { _, message, context in
        guard let message else { return DBUS_HANDLER_RESULT_NOT_YET_HANDLED }
        let connection = DBusConnection.connection(context)
        connection.route(DBusMessage(retaining: message))
        return DBUS_HANDLER_RESULT_NOT_YET_HANDLED
    }

    /// Runs inside `dbus_connection_dispatch`, so under the lock: it only
    /// queues the deliveries, which `drain` makes once the lock is released.
    private func route(_ message: DBusMessage) {
        guard message.kind == .signal else { return }
        let header = SignalHeader(message)
        if SignalHeader.same(header.interface, "org.freedesktop.DBus.Local"), SignalHeader.same(header.member, "Disconnected") {
            // Not from inside libdbus's dispatch: closing re-enters it.
            loop.async { self.shutDown() }
            return
        }
        for subscription in subscriptions.values where subscription.rule.matches(header) {
            deliveries.append((subscription.deliver, message))
        }
    }
}

extension DBusMessage {
    /// A call to the bus driver itself.
    static func busCall(_ method: String, _ arguments: [DBusValue]) throws(DBusError) -> DBusMessage {
        try methodCall(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
            interface: "org.freedesktop.DBus", method: method, arguments: arguments)
    }
}
