package import DBus

extension ControlInterface {
    /// The running daemon's properties (`GetAll` on the control interface),
    /// asking `daemon` (the well-known name, or the owner's unique name);
    /// nil when no daemon answers.
    package static func properties(on bus: DBusConnection, daemon: String = busName) async -> [String: DBusValue]? {
        // No answer is no daemon to ask.
        try? await bus.call(
            destination: daemon, path: path, interface: "org.freedesktop.DBus.Properties", method: "GetAll",
            arguments: [.string(interface)], timeout: .seconds(2)).first?.stringKeyed
    }

    /// How the running daemon hears adverts and why (its `ScanMode` and
    /// `ScanModeReason`), and with which adapter (`ScanAdapter`, empty when
    /// it did not say); nil when no daemon answers or it is not scanning.
    package static func reception(on bus: DBusConnection, daemon: String = busName) async -> (mode: String, reason: String, adapter: String)? {
        guard let properties = await properties(on: bus, daemon: daemon),
              let mode = properties["ScanMode"]?.string, !mode.isEmpty else { return nil }
        return (mode, properties["ScanModeReason"]?.string ?? "", properties["ScanAdapter"]?.string ?? "")
    }
}
