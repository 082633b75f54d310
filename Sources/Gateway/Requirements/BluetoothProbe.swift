import DBus

/// Checks what the Bluetooth side of recording needs, through BlueZ's
/// D-Bus API: the service, access to it, the adapter and its power.
struct BluetoothProbe {
    var adapter: String?

    func missing(on connection: DBusConnection?) async -> [Requirement] {
        guard let connection else { return [.systemBus] }
        do {
            guard try await connection.owner(of: "org.bluez") != nil else { return [.bluetoothService] }
            let reply = try await connection.call(
                destination: "org.bluez", path: "/", interface: "org.freedesktop.DBus.ObjectManager",
                method: "GetManagedObjects", timeout: .seconds(5))
            let adapters = (reply.first?.stringKeyed ?? [:]).compactMapValues { $0.stringKeyed?["org.bluez.Adapter1"]?.stringKeyed }
            guard let chosen = choose(adapters) else { return [.bluetoothAdapter] }
            return chosen["Powered"]?.bool == true ? [] : [.adapterPowered]
        } catch where error.name == .accessDenied {
            return [.bluetoothAccess]
        } catch where error == .disconnected {
            return [.systemBus]
        } catch {
            return [.bluetoothService]
        }
    }

    /// The configured adapter by name (`hci0`) or address, else the first by path.
    private func choose(_ adapters: [String: [String: DBusValue]]) -> [String: DBusValue]? {
        guard let adapter else { return adapters.keys.sorted().first.flatMap { adapters[$0] } }
        return adapters.first { path, properties in
            path.hasSuffix("/" + adapter) || properties["Address"]?.string?.uppercased() == adapter.uppercased()
        }?.value
    }
}
