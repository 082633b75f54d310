import DBus

extension BlueZScanner {
    func ownerChanged(to owner: String?) async {
        if owner == nil {
            lose(.serviceAbsent)
        } else {
            await synchronize(reason: "bluetoothd returned")
        }
    }

    /// InterfacesAdded for an adapter, or InterfacesRemoved for anything.
    func objectsChanged(member: String, path: String, _ payload: DBusValue) async {
        switch member {
        case "InterfacesAdded":
            if payload.stringKeyed?["org.bluez.Adapter1"] != nil, adapterPath == nil {
                await synchronize(reason: "adapter added")
            }
        case "InterfacesRemoved":
            let removed = payload.array?.compactMap(\.string) ?? []
            if removed.contains("org.bluez.Device1") { devices.remove(path) }
            if removed.contains("org.bluez.Adapter1"), path == adapterPath {
                // Devices under a removed adapter go with it.
                devices.removeAll(under: path)
                lose(.noAdapter)
                // Another adapter may still be there when none was configured.
                if options.adapter == nil { await synchronize(reason: "adapter removed") }
            }
        default:
            break
        }
    }

    func adapterChanged(path: String, changed: [String: DBusValue]) async {
        guard path == adapterPath else { return }
        if let powered = changed["Powered"]?.bool {
            if !powered {
                enter(.poweredOff)
            } else if state != .scanning {
                await startScanning(reason: "adapter powered on")
            }
        } else if changed["Discovering"]?.bool == false, state == .scanning, !cycling, !usesMonitor {
            // Our own cycle's stop can be announced after its start: only a
            // discovery that is still off was stopped by someone else
            // (another client, or a BlueZ hiccup).
            guard await discovering(path) == false, state == .scanning, !cycling else { return }
            await startDiscovery(reason: "discovery stopped by BlueZ")
        }
    }
}
