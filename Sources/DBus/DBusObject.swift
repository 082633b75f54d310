/// An object this process exports on the bus: interfaces with methods,
/// properties and signals. `org.freedesktop.DBus.Properties` and
/// `org.freedesktop.DBus.Introspectable` are answered for it.
public struct DBusObject: Sendable {
    public var interfaces: [DBusInterface]

    public init(_ interfaces: [DBusInterface]) { self.interfaces = interfaces }

    func interface(named name: String) -> DBusInterface? {
        interfaces.first { $0.name == name }
    }
}
