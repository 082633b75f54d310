internal import CDBus
internal import Glibc

/// A signal's routing fields, read from libdbus once per message and
/// compared in place: every signal is matched against every subscription, so
/// no Swift string is made for them. The pointers live as long as `message`.
struct SignalHeader {
    let message: DBusMessage
    let interface: UnsafePointer<CChar>?
    let member: UnsafePointer<CChar>?
    let path: UnsafePointer<CChar>?
    /// The first argument when it is a string or object path (for `arg0`
    /// rules), read once per message and compared in place.
    let firstArgument: UnsafePointer<CChar>?

    init(_ message: DBusMessage) {
        self.message = message
        interface = dbus_message_get_interface(message.raw)
        member = dbus_message_get_member(message.raw)
        path = dbus_message_get_path(message.raw)
        var iter = cdbus_iter_zero()
        if dbus_message_iter_init(message.raw, &iter) != 0,
           case let type = dbus_message_iter_get_arg_type(&iter), type == CDBUS_TYPE_STRING || type == CDBUS_TYPE_OBJECT_PATH {
            firstArgument = cdbus_get_string(&iter)
        } else {
            firstArgument = nil
        }
    }

    static func same(_ field: UnsafePointer<CChar>?, _ text: String) -> Bool {
        guard let field else { return false }
        return text.withCString { strcmp(field, $0) == 0 }
    }

    /// The path is `namespace` or an object below it.
    func isInside(_ namespace: String) -> Bool {
        guard let path else { return false }
        if namespace == "/" { return true }
        return namespace.withCString { prefix in
            let length = strlen(prefix)
            guard strncmp(path, prefix, length) == 0 else { return false }
            let next = path[length]
            return next == 0 || next == CChar(UInt8(ascii: "/"))
        }
    }
}
