internal import CDBus

extension DBusMessage {
    /// A method call (`dbus_message_new_method_call`). Names and the path are
    /// checked first, so a bad one is an error rather than a libdbus warning.
    public static func methodCall(
        destination: String?, path: String, interface: String?, method: String, arguments: [DBusValue] = []
    ) throws(DBusError) -> DBusMessage {
        if let destination { try check(destination, dbus_validate_bus_name, "bus name") }
        try checkPath(path)
        if let interface { try check(interface, dbus_validate_interface, "interface") }
        try check(method, dbus_validate_member, "member")
        guard let raw = dbus_message_new_method_call(destination, path, interface, method) else { throw .outOfMemory }
        let message = DBusMessage(taking: raw)
        try DBusMarshal.appendAll(arguments, to: raw)
        return message
    }

    /// A signal (`dbus_message_new_signal`); with a `destination`, the bus
    /// routes it to that connection alone.
    public static func signal(
        path: String, interface: String, name: String, arguments: [DBusValue] = [], destination: String? = nil
    ) throws(DBusError) -> DBusMessage {
        try checkPath(path)
        try check(interface, dbus_validate_interface, "interface")
        try check(name, dbus_validate_member, "member")
        if let destination { try check(destination, dbus_validate_bus_name, "bus name") }
        guard let raw = dbus_message_new_signal(path, interface, name) else { throw .outOfMemory }
        let message = DBusMessage(taking: raw)
        if let destination, dbus_message_set_destination(raw, destination) == 0 { throw .outOfMemory }
        try DBusMarshal.appendAll(arguments, to: raw)
        return message
    }

    /// The reply to this method call (`dbus_message_new_method_return`).
    func makeReturn(_ arguments: [DBusValue]) throws(DBusError) -> DBusMessage {
        guard let raw = dbus_message_new_method_return(self.raw) else { throw .outOfMemory }
        let message = DBusMessage(taking: raw)
        try DBusMarshal.appendAll(arguments, to: raw)
        return message
    }

    /// An error reply to this method call (`dbus_message_new_error`).
    func makeError(_ name: DBusErrorName, _ text: String) -> DBusMessage? {
        let safeName = dbus_validate_error_name(name.rawValue, nil) != 0 ? name : .failed
        let safeText = text.replacingNUL()
        return dbus_message_new_error(raw, safeName.rawValue, safeText).map { DBusMessage(taking: $0) }
    }

    private static func checkPath(_ path: String) throws(DBusError) {
        guard DBusMarshal.isValidObjectPath(path) else { throw .invalidArgument("invalid object path \(path.debugDescription)") }
    }

    private static func check(
        _ name: String, _ validator: (UnsafePointer<CChar>?, UnsafeMutablePointer<CDBus.DBusError>?) -> dbus_bool_t,
        _ what: String
    ) throws(DBusError) {
        guard !name.utf8.contains(0), validator(name, nil) != 0 else {
            throw .invalidArgument("invalid \(what) \(name.debugDescription)")
        }
    }
}

extension String {
    func replacingNUL() -> String {
        utf8.contains(0) ? String(decoding: utf8.filter { $0 != 0 }, as: UTF8.self) : self
    }
}
