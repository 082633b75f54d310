internal import CDBus

/// A libdbus `DBusError` out-parameter, freed when dropped.
struct LibDBusError: ~Copyable {
    var raw = CDBus.DBusError()

    init() { dbus_error_init(&raw) }

    deinit {
        var copy = raw
        dbus_error_free(&copy)
    }

    var isSet: Bool {
        var copy = raw
        return dbus_error_is_set(&copy) != 0
    }

    var name: DBusErrorName {
        DBusErrorName(rawValue: raw.name.map { String(cString: $0) } ?? DBusErrorName.failed.rawValue)
    }

    var message: String { raw.message.map { String(cString: $0) } ?? "" }
}
