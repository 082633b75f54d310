import DBus

extension BlueZScanner {
    func ownerChanged(to owner: String?) async {
        if owner == nil {
            lose(.serviceAbsent)
        } else {
            await synchronize(reason: "bluetoothd returned")
        }
    }

    func objectsChanged(_ message: DBusMessage) async {
        guard let arguments = try? message.arguments(), arguments.count == 2, let path = arguments[0].string else { return }
        switch message.member {
        case "InterfacesAdded":
            guard let interfaces = arguments[1].stringKeyed else { return }
            if interfaces["org.bluez.Adapter1"] != nil, adapterPath == nil {
                await synchronize(reason: "adapter added")
            }
            if let properties = interfaces["org.bluez.Device1"]?.stringKeyed, let address = DeviceRecord.address(fromPath: path) {
                var record = devices[path] ?? DeviceRecord(address: address, lastSeen: 0)
                record.apply(properties)
                record.lastSeen = tick
                remember(record, at: path)
                emit(record)
            }
        case "InterfacesRemoved":
            let removed = arguments[1].array?.compactMap(\.string) ?? []
            if removed.contains("org.bluez.Device1") { devices[path] = nil }
            if removed.contains("org.bluez.Adapter1"), path == adapterPath {
                // Devices under a removed adapter go with it.
                devices = devices.filter { !$0.key.hasPrefix(path + "/") }
                lose(.noAdapter)
                // Another adapter may still be there when none was configured.
                if options.adapter == nil { await synchronize(reason: "adapter removed") }
            }
        default:
            break
        }
    }

    func propertiesChanged(path: String, interface: String, changed: [String: DBusValue]) async {
        switch interface {
        case "org.bluez.Device1":
            guard let address = devices[path]?.address ?? DeviceRecord.address(fromPath: path) else { return }
            var record = devices[path] ?? DeviceRecord(address: address, lastSeen: 0)
            record.apply(changed)
            record.lastSeen = tick
            remember(record, at: path)
            emit(record)
        case "org.bluez.Adapter1" where path == adapterPath:
            if let powered = changed["Powered"]?.bool {
                if !powered {
                    enter(.poweredOff)
                } else if state != .scanning {
                    await startDiscovery(reason: "adapter powered on")
                }
            } else if changed["Discovering"]?.bool == false, state == .scanning {
                // Someone else stopped discovery (another client, or a BlueZ hiccup).
                await startDiscovery(reason: "discovery stopped by BlueZ")
            }
        default:
            break
        }
    }

    /// Keeps the table bounded: when full, the longest-unseen tenth of the
    /// unpaired devices is forgotten at once, so eviction is rare.
    func remember(_ record: DeviceRecord, at path: String) {
        if devices[path] == nil, devices.count >= options.maxDevices {
            let victims = devices.filter { !$0.value.paired }.sorted { $0.value.lastSeen < $1.value.lastSeen }
                .prefix(max(1, options.maxDevices / 10))
            for (victim, _) in victims { devices[victim] = nil }
        }
        devices[path] = record
    }
}
