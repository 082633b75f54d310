package import DBus

extension ControlInterface {
    /// How the running daemon hears adverts and why (its `ScanMode` and
    /// `ScanModeReason`), and with which adapter (`ScanAdapter`, empty when
    /// it did not say), asking `daemon` (the well-known name, or the
    /// owner's unique name); nil when no daemon answers or it is not scanning.
    package static func reception(on bus: DBusConnection, daemon: String = busName) async -> (mode: String, reason: String, adapter: String)? {
        // No answer is no daemon to ask.
        guard let properties = try? await bus.call(
            destination: daemon, path: path, interface: "org.freedesktop.DBus.Properties", method: "GetAll",
            arguments: [.string(interface)], timeout: .seconds(2)).first?.stringKeyed,
            let mode = properties["ScanMode"]?.string, !mode.isEmpty else { return nil }
        return (mode, properties["ScanModeReason"]?.string ?? "", properties["ScanAdapter"]?.string ?? "")
    }
}
