internal import CDBus

/// The pending calls of a connection that wait for their replies, each
/// holding the reference `dbus_connection_send_with_reply` returned. Only
/// the connection's loop touches it.
final class CallsInFlight: @unchecked Sendable {
    private var pending: Set<OpaquePointer> = []

    func add(_ call: OpaquePointer) { pending.insert(call) }

    func remove(_ call: OpaquePointer) { pending.remove(call) }

    /// Cancels every call: dropping the last reference frees its reply box,
    /// which resumes the caller with `disconnected`.
    func endAll() {
        let calls = pending
        pending.removeAll()
        for call in calls {
            dbus_pending_call_cancel(call)
            dbus_pending_call_unref(call)
        }
    }
}
