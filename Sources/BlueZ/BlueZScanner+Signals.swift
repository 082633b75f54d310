import Basics
import DBus
import Radio

extension BlueZScanner {
    func ownerChanged(to owner: String?) async {
        if owner == nil {
            lose(.serviceAbsent)
        } else {
            await synchronize(reason: .bluetoothdReturned)
        }
    }

    /// Gives a powered-off adapter `failoverDelay` to come back; then, with
    /// another adapter there, scanning moves to it.
    func scheduleFailover(from path: String) {
        failingAdapter = path
        failover.set(after: options.failoverDelay)
    }

    func failOver() async {
        guard let path = failingAdapter, adapterPath == path, state == .poweredOff else { return }
        await synchronize(reason: .adapterPoweredOff(AdapterName(path: path)))
    }

    /// InterfacesAdded for an adapter, or InterfacesRemoved for anything.
    func objectsChanged(member: String, path: String, _ payload: DBusValue) async {
        switch member {
        case "InterfacesAdded":
            if payload.stringKeyed?["org.bluez.Adapter1"] != nil, adapterPath == nil {
                await synchronize(reason: .adapterAdded)
            }
        case "InterfacesRemoved":
            let removed = payload.array?.compactMap(\.string) ?? []
            if removed.contains("org.bluez.Device1") { devices.remove(path) }
            if removed.contains("org.bluez.Adapter1"), path == adapterPath {
                // Devices under a removed adapter go with it.
                devices.removeAll(under: path)
                lose(.noAdapter)
                // Another adapter may still be there when none was configured.
                if options.adapter == nil { await synchronize(reason: .adapterRemoved) }
            }
        default:
            break
        }
    }

    func adapterChanged(path: String, changed: [String: DBusValue]) async {
        guard path == adapterPath else {
            // Another adapter came up while this one is off or gone: use it.
            if changed["Powered"]?.bool == true, options.adapter == nil, state != .scanning, state != .starting {
                await synchronize(reason: .adapterPoweredOn(AdapterName(path: path)))
            }
            return
        }
        if let powered = changed["Powered"]?.bool {
            if !powered {
                enter(.poweredOff)
                if options.adapter == nil, !cyclingPower { scheduleFailover(from: path) }
            } else if state != .scanning {
                await startScanning(reason: .adapterPoweredOn(AdapterName(path: path)))
            }
        } else if changed["Discovering"]?.bool == false, state == .scanning, !cycling, !usesMonitor {
            // Our own cycle's stop can be announced after its start: only a
            // discovery that is still off was stopped by someone else
            // (another client, or a BlueZ hiccup).
            guard await discovering(path) == false, state == .scanning, !cycling else { return }
            await startDiscovery(reason: .stoppedByBlueZ)
        }
    }
}
