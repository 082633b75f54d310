package import DBus
package import Radio
import Vocabulary

/// A sighting as the control interface's `Sighting` signal carries it: one
/// `a{sv}` under BlueZ's Device1 property names (`Address`, `AddressType`,
/// `RSSI`, `TxPower`, `Name`, `Paired`, `ManufacturerData`, `ServiceData`),
/// so that any BlueZ client reads it as it reads a device.
package enum SightingSignal {
    package static let member = "Sighting"

    package static func arguments(_ sighting: Sighting) -> [DBusValue] {
        var properties: [String: DBusValue] = ["Address": .string(sighting.address.description), "Paired": .bool(sighting.paired)]
        if let kind = sighting.address.kind { properties["AddressType"] = .string(kind.rawValue) }
        if let rssi = sighting.rssi { properties["RSSI"] = .int16(Int16(clamping: rssi)) }
        if let power = sighting.txPower { properties["TxPower"] = .int16(Int16(clamping: power)) }
        if let name = sighting.name { properties["Name"] = .string(name) }
        if !sighting.manufacturerData.isEmpty {
            properties["ManufacturerData"] = .dictionary(key: "q", value: "v", sighting.manufacturerData.sorted { $0.key < $1.key }.map {
                DBusDictEntry(.uint16($0.key), .variant(.bytes($0.value)))
            })
        }
        if !sighting.serviceData.isEmpty {
            properties["ServiceData"] = .dictionary(key: "s", value: "v", sighting.serviceData.sorted { $0.key < $1.key }.map {
                DBusDictEntry(.string($0.key.description), .variant(.bytes($0.value)))
            })
        }
        return [.vardict(properties)]
    }

    /// The sighting in a `Sighting` signal, stamped `uptimeNanoseconds`;
    /// nil unless it names a valid address. Whatever else does not fit its
    /// property (a wrong type, a number out of range, a key that is no
    /// company id or UUID) is left out, never trusted.
    package static func sighting(_ message: DBusMessage, uptimeNanoseconds: UInt64) -> Sighting? {
        guard message.signature == "a{sv}", let properties = (try? message.arguments())?.first?.stringKeyed,
              let text = properties["Address"]?.string else { return nil }
        let kind = properties["AddressType"]?.string.flatMap(BluetoothAddress.Kind.init(rawValue:))
        guard let address = BluetoothAddress(text, kind: kind) else { return nil }
        var sighting = Sighting(address: address, uptimeNanoseconds: uptimeNanoseconds)
        sighting.rssi = properties["RSSI"]?.int64.flatMap { Int16(exactly: $0) }.map(Int.init)
        sighting.txPower = properties["TxPower"]?.int64.flatMap { Int16(exactly: $0) }.map(Int.init)
        sighting.name = properties["Name"]?.string
        sighting.paired = properties["Paired"]?.bool ?? false
        for entry in properties["ManufacturerData"]?.entries ?? [] {
            if let company = entry.key.int64.flatMap(UInt16.init(exactly:)), let bytes = entry.value.bytes { sighting.manufacturerData[company] = bytes }
        }
        for entry in properties["ServiceData"]?.entries ?? [] {
            if let uuid = entry.key.string.flatMap(BluetoothUUID.init), let bytes = entry.value.bytes { sighting.serviceData[uuid] = bytes }
        }
        return sighting
    }
}
