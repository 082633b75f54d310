internal import CDBus
import Synchronization

extension DBusMessage {
    /// This message if it was never sent, else a copy (`dbus_message_copy`).
    /// Sending stamps a serial on the message, and replies are matched by it,
    /// so a message sent twice (even concurrently) must go out as two copies.
    func forSending() -> DBusMessage? {
        if dbus_message_get_serial(raw) == 0 { return self }
        return dbus_message_copy(raw).map { DBusMessage(taking: $0) }
    }
}

extension DBusConnection {
    /// Sends a method call and waits for its reply
    /// (`dbus_connection_send_with_reply`). An error reply throws
    /// `DBusError.remote`; no reply within `timeout` throws `NoReply`.
    public func call(_ message: DBusMessage, timeout: Duration = .seconds(25)) async throws(DBusError) -> DBusMessage {
        let milliseconds = Int32(clamping: timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        let result: Result<DBusMessage, DBusError> = await withUnsafeContinuation { continuation in
            loop.perform { [self] in
                if let failure = startCall(message, continuation, milliseconds: milliseconds) {
                    continuation.resume(returning: .failure(failure))
                }
            }
        }
        let reply = try result.get()
        if let error = reply.error { throw error }
        return reply
    }

    /// Calls a method and returns the reply's arguments.
    public func call(
        destination: String?, path: String, interface: String?, method: String,
        arguments: [DBusValue] = [], timeout: Duration = .seconds(25)
    ) async throws(DBusError) -> [DBusValue] {
        let message = try DBusMessage.methodCall(
            destination: destination, path: path, interface: interface, method: method, arguments: arguments)
        return try await call(message, timeout: timeout).arguments()
    }

    /// Sends without waiting for a reply: signals, and calls flagged no-reply.
    /// Messages leave in the order they were given, calls included.
    public func send(_ message: DBusMessage) throws(DBusError) {
        guard isOpen, let outgoing = message.forSending() else { throw .disconnected }
        loop.perform { [self] in
            if isOpen { dbus_connection_send(raw, outgoing.raw, nil) }
        }
    }

    /// On the loop: sends `message` and arranges for `continuation` to get
    /// the reply. Returns nil once that is arranged, else why it failed (the
    /// continuation is then still the caller's to resume).
    ///
    /// All sending happens on the loop because libdbus toggles socket watches
    /// while sending, and it silently drops a toggle made while another thread
    /// is toggling: a send from a second thread could sit unsent.
    private func startCall(
        _ message: DBusMessage, _ continuation: UnsafeContinuation<Result<DBusMessage, DBusError>, Never>,
        milliseconds: Int32
    ) -> DBusError? {
        guard isOpen else { return .disconnected }
        guard let outgoing = message.forSending() else { return .outOfMemory }
        var pending: OpaquePointer?
        guard dbus_connection_send_with_reply(raw, outgoing.raw, &pending, max(milliseconds, 1)) != 0 else { return .outOfMemory }
        guard let pending else { return .disconnected }
        let box = Unmanaged.passRetained(ReplyBox(continuation, inFlight: inFlight)).toOpaque()
        // Replies are dispatched only on the loop, so the call cannot
        // complete before the notifier is in place.
        guard dbus_pending_call_set_notify(pending, DBusConnection.replyArrived, box, DBusConnection.releaseReplyBox) != 0 else {
            Unmanaged<ReplyBox>.fromOpaque(box).release()
            dbus_pending_call_cancel(pending)
            dbus_pending_call_unref(pending)
            return .outOfMemory
        }
        inFlight.add(pending)
        return nil
    }

    /// Emits a signal from `path`: to every connection whose match rules
    /// take it, or with a `destination` to that one only.
    public func emit(path: String, interface: String, name: String, arguments: [DBusValue] = [], to destination: String? = nil) throws(DBusError) {
        try send(DBusMessage.signal(path: path, interface: interface, name: name, arguments: arguments, destination: destination))
    }

    // MARK: Pending calls

    /// Holds a caller's continuation until libdbus reports the reply. Touched
    /// only on the loop.
    final class ReplyBox: @unchecked Sendable {
        var continuation: UnsafeContinuation<Result<DBusMessage, DBusError>, Never>?
        let inFlight: CallsInFlight
        init(_ continuation: UnsafeContinuation<Result<DBusMessage, DBusError>, Never>, inFlight: CallsInFlight) {
            (self.continuation, self.inFlight) = (continuation, inFlight)
        }
    }

    static let replyArrived: DBusPendingCallNotifyFunction = { pending, data in
        guard let pending, let data else { return }
        let box = Unmanaged<ReplyBox>.fromOpaque(data).takeUnretainedValue()
        let reply = dbus_pending_call_steal_reply(pending)
        box.inFlight.remove(pending)
        dbus_pending_call_unref(pending)
        guard let continuation = box.continuation else { return }
        box.continuation = nil
        continuation.resume(returning: reply.map { .success(DBusMessage(taking: $0)) } ?? .failure(.disconnected))
    }

    /// Runs when libdbus drops the pending call; resumes a caller that never
    /// got a reply, so no continuation is ever leaked.
    static let releaseReplyBox: DBusFreeFunction = { data in
        guard let data else { return }
        let box = Unmanaged<ReplyBox>.fromOpaque(data).takeRetainedValue()
        box.continuation?.resume(returning: .failure(.disconnected))
        box.continuation = nil
    }
}
