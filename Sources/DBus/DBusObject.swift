/// An object this process exports on the bus: interfaces with methods,
/// properties and signals. `org.freedesktop.DBus.Properties` and
/// `org.freedesktop.DBus.Introspectable` are answered for it.
public struct DBusObject: Sendable {
    public var interfaces: [DBusInterface]

    public init(_ interfaces: [DBusInterface]) { self.interfaces = interfaces }

    func interface(named name: String) -> DBusInterface? {
        interfaces.first { $0.name == name }
    }

    /// The method `member` of `interface`, or of any interface when the call names none.
    func method(_ member: String?, of interface: String?) -> DBusMethod? {
        let candidates = interface.map { name in self.interface(named: name).map { [$0] } ?? [] } ?? interfaces
        return candidates.lazy.compactMap { $0.methods.first { $0.name == member } }.first
    }
}
