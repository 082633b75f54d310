internal import CDBus

/// A D-Bus message: a method call, a reply, an error or a signal.
///
/// Wraps a libdbus `DBusMessage`. A message is immutable once it has been sent
/// or received (libdbus locks it), which is what makes sharing it safe.
public final class DBusMessage: @unchecked Sendable {
    public enum Kind: Sendable, Equatable {
        case methodCall, methodReturn, error, signal, unknown
    }

    let raw: OpaquePointer

    /// Takes ownership of one reference to `raw`.
    init(taking raw: OpaquePointer) {
        self.raw = raw
    }

    /// Adds a reference to `raw` and owns it.
    init(retaining raw: OpaquePointer) {
        self.raw = dbus_message_ref(raw)
    }

    deinit { dbus_message_unref(raw) }

    public var kind: Kind {
        switch Int32(dbus_message_get_type(raw)) {
        case CDBUS_MESSAGE_TYPE_METHOD_CALL: .methodCall
        case CDBUS_MESSAGE_TYPE_METHOD_RETURN: .methodReturn
        case CDBUS_MESSAGE_TYPE_ERROR: .error
        case CDBUS_MESSAGE_TYPE_SIGNAL: .signal
        default: .unknown
        }
    }

    public var path: String? { dbus_message_get_path(raw).map { String(cString: $0) } }
    public var interface: String? { dbus_message_get_interface(raw).map { String(cString: $0) } }
    public var member: String? { dbus_message_get_member(raw).map { String(cString: $0) } }
    public var sender: String? { dbus_message_get_sender(raw).map { String(cString: $0) } }
    public var destination: String? { dbus_message_get_destination(raw).map { String(cString: $0) } }
    public var errorName: String? { dbus_message_get_error_name(raw).map { String(cString: $0) } }
    public var signature: String { dbus_message_get_signature(raw).map { String(cString: $0) } ?? "" }
    public var serial: UInt32 { dbus_message_get_serial(raw) }
    public var replySerial: UInt32 { dbus_message_get_reply_serial(raw) }

    /// The body, decoded.
    public func arguments() throws(DBusError) -> [DBusValue] {
        var iter = cdbus_iter_zero()
        guard dbus_message_iter_init(raw, &iter) != 0 else { return [] }
        return try DBusMarshal.readAll(&iter)
    }

    /// The first string argument, which is what error replies and many
    /// signals (NameOwnerChanged's arg0) carry.
    public var firstString: String? {
        var iter = cdbus_iter_zero()
        guard dbus_message_iter_init(raw, &iter) != 0 else { return nil }
        let type = dbus_message_iter_get_arg_type(&iter)
        guard type == CDBUS_TYPE_STRING || type == CDBUS_TYPE_OBJECT_PATH else { return nil }
        return cdbus_get_string(&iter).map { String(cString: $0) }
    }

    /// The error this message carries, if it is an error reply.
    public var error: DBusError? {
        guard kind == .error else { return nil }
        return .remote(DBusErrorName(rawValue: errorName ?? DBusErrorName.failed.rawValue), message: firstString ?? "")
    }

    /// The wire form (`dbus_message_marshal`). A message that was never sent
    /// gets serial 1, since the wire form needs one.
    public func marshal() throws(DBusError) -> [UInt8] {
        if dbus_message_get_serial(raw) == 0 { dbus_message_set_serial(raw, 1) }
        var buffer: UnsafeMutablePointer<CChar>?
        var length: Int32 = 0
        guard dbus_message_marshal(raw, &buffer, &length) != 0, let buffer else { throw .outOfMemory }
        defer { dbus_free(buffer) }
        return buffer.withMemoryRebound(to: UInt8.self, capacity: Int(length)) {
            Array(UnsafeBufferPointer(start: $0, count: Int(length)))
        }
    }

    /// Parses a message from its wire form (`dbus_message_demarshal`). Any bytes
    /// are accepted; invalid ones give `.malformedMessage`.
    public convenience init(demarshalling bytes: [UInt8]) throws(DBusError) {
        var error = LibDBusError()
        let message = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) {
                dbus_message_demarshal($0.baseAddress, Int32(clamping: $0.count), &error.raw)
            }
        }
        guard let message else {
            throw .malformedMessage(error.isSet ? error.message : "not a D-Bus message")
        }
        self.init(taking: message)
    }
}
