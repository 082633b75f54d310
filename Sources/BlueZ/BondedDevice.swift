public import DBus
public import Vocabulary

/// A device bonded to BlueZ (paired, keys stored). bluetoothd resolves a
/// bonded device's private addresses with the IRK it holds and reports it
/// under its identity address.
public struct BondedDevice: Sendable, Equatable {
    /// The identity address.
    public var address: BluetoothAddress
    public var name: String?
}

extension BlueZScanner {
    /// The devices bonded on the adapter (`wanted`, or the first), by address;
    /// none when bluetoothd cannot be asked.
    public static func bondedDevices(on connection: DBusConnection, adapter wanted: String?) async -> [BondedDevice] {
        guard let objects = try? await managedObjects(on: connection, timeout: .seconds(10)),
              let (adapter, _) = adapter(in: objects, wanted: wanted) else { return [] }
        return objects.compactMap { path, interfaces -> BondedDevice? in
            guard path.hasPrefix(adapter + "/"), let device = interfaces["org.bluez.Device1"]?.stringKeyed,
                  device["Bonded"]?.bool == true || device["Paired"]?.bool == true,
                  let text = device["Address"]?.string,
                  let address = BluetoothAddress(text, kind: device["AddressType"]?.string.flatMap(BluetoothAddress.Kind.init(rawValue:)))
            else { return nil }
            return BondedDevice(address: address, name: device["Name"]?.string ?? device["Alias"]?.string)
        }.sorted { $0.address < $1.address }
    }
}
