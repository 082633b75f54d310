import DBus
internal import Dispatch
import Radio
import Vocabulary

/// What the scanner remembers about one device object.
struct DeviceRecord: Sendable {
    var address: BluetoothAddress
    var rssi: Int?
    var txPower: Int?
    var name: String?
    var manufacturerData: [UInt16: [UInt8]] = [:]
    var serviceData: [BluetoothUUID: [UInt8]] = [:]
    var paired = false
    var lastSeen: UInt64
    /// Under a monitor (passive mode): the monitor that last reported the
    /// device, and whether its last advert is still owed a sighting (see
    /// `DeviceTable.found`).
    var lastMonitor: Int?
    var owed = false
    /// How many of its sightings in a row the consumer found of no interest
    /// (no pairing's); any of interest resets it.
    var strangerRun: UInt8 = 0

    /// Sightings in a row of no interest after which a device is a stranger,
    /// whose adverts are shed unread while the reader is behind. A beacon
    /// that takes turns between frames (iBeacon and Eddystone, say) keeps
    /// resetting it.
    static let strangerAfter: UInt8 = 8

    var isStranger: Bool { !paired && strangerRun >= Self.strangerAfter }

    mutating func judged(interesting: Bool) {
        strangerRun = interesting ? 0 : strangerRun == .max ? .max : strangerRun + 1
    }

    /// Applies Device1 properties (from InterfacesAdded or PropertiesChanged)
    /// straight from the message's `a{sv}` entries, without building a
    /// dictionary first: this runs for every advert.
    mutating func apply(_ entries: [DBusDictEntry]) {
        for entry in entries {
            if case .string(let key) = entry.key { apply(key, entry.value) }
        }
    }

    /// Applies Device1 properties read in place from an `a{sv}` (the fast
    /// path for PropertiesChanged); unknown keys and odd types are skipped.
    ///
    /// Returns whether the change carried advert data. bluetoothd also sends
    /// Device1 changes that are not adverts: at every discovery stop it
    /// invalidates RSSI and TxPower of the devices it found (a change with
    /// no changed properties), and connection state changes.
    @discardableResult
    mutating func apply(_ properties: inout DBusArgumentReader) -> Bool {
        var advert = false
        properties.forEachEntry { entry in
            guard let key = entry.string() else { return }
            if Self.advertKeys.contains(key) { advert = true }
            switch key {
            case "RSSI": rssi = entry.variant { $0.integer() }.map(Int.init)
            case "TxPower": txPower = entry.variant { $0.integer() }.map(Int.init)
            case "ManufacturerData":
                guard let data = entry.variant({ reader -> [UInt16: [UInt8]]? in
                    var data: [UInt16: [UInt8]] = [:]
                    let isDictionary = reader.forEachEntry { pair in
                        if let id = pair.integer().flatMap(UInt16.init(exactly:)), let bytes = pair.variant({ $0.bytes() }) { data[id] = bytes }
                    }
                    return isDictionary ? data : nil
                }) else { return }
                manufacturerData = data
            case "ServiceData":
                guard let data = entry.variant({ reader -> [BluetoothUUID: [UInt8]]? in
                    var data: [BluetoothUUID: [UInt8]] = [:]
                    let isDictionary = reader.forEachEntry { pair in
                        if let uuid = pair.string().flatMap(BluetoothUUID.init), let bytes = pair.variant({ $0.bytes() }) { data[uuid] = bytes }
                    }
                    return isDictionary ? data : nil
                }) else { return }
                serviceData = data
            default:
                if let value = try? entry.value() { apply(key, value) }
            }
        }
        return advert
    }

    /// A monitor's `DeviceFound`: whether it begins another advert (the
    /// monitors an advert matches are called in their order, so a monitor not
    /// after the last one begins the next advert), and whether it pays the
    /// sighting the advert before is still owed.
    mutating func found(by monitor: Int) -> (advert: Bool, pays: Bool) {
        defer { lastMonitor = monitor }
        guard lastMonitor.map({ monitor <= $0 }) ?? true else { return (false, false) }
        defer { owed = true }
        return (true, owed)
    }

    /// Under a monitor, a property change is a sighting only when it carries
    /// advert data and pays the one owed.
    mutating func pays(advert: Bool) -> Bool {
        guard advert, owed else { return false }
        owed = false
        return true
    }

    /// Device1 properties that change only when an advert arrives.
    static let advertKeys: Set<String> = ["RSSI", "TxPower", "ManufacturerData", "ServiceData", "AdvertisingData", "AdvertisingFlags"]

    private mutating func apply(_ key: String, _ value: DBusValue) {
        switch key {
        case "Address": if let text = value.string, let parsed = BluetoothAddress(text, kind: address.kind) { address = parsed }
        case "AddressType": address.kind = value.string.flatMap(BluetoothAddress.Kind.init(rawValue:))
        case "RSSI": rssi = value.int64.map(Int.init)
        case "TxPower": txPower = value.int64.map(Int.init)
        case "Name", "Alias": if key == "Name" || name == nil { name = value.string }
        case "Paired": paired = value.bool ?? paired
        // A malformed value (like python-dbusmock's aa{qv}) is ignored, not fatal.
        case "ManufacturerData":
            manufacturerData = Self.bytes(by: value) { if case .uint16(let id) = $0 { id } else { nil } } ?? manufacturerData
        case "ServiceData":
            serviceData = Self.bytes(by: value) { if case .string(let uuid) = $0 { BluetoothUUID(uuid) } else { nil } } ?? serviceData
        default: return
        }
    }

    /// A dictionary of byte arrays (`a{qv}`, `a{sv}`), keyed by what `key`
    /// makes of each entry's key; entries it refuses, or whose value holds
    /// no bytes, are skipped. nil when the value is no dictionary.
    private static func bytes<Key: Hashable>(by value: DBusValue, key: (DBusValue) -> Key?) -> [Key: [UInt8]]? {
        guard let entries = value.entries else { return nil }
        var data: [Key: [UInt8]] = [:]
        for entry in entries {
            if let key = key(entry.key), let bytes = entry.value.bytes { data[key] = bytes }
        }
        return data
    }

    /// The record as a sighting stamped now (monotonic).
    func sighting() -> Sighting {
        Sighting(
            address: address, rssi: rssi, txPower: txPower, name: name,
            manufacturerData: manufacturerData, serviceData: serviceData, paired: paired,
            uptimeNanoseconds: DispatchTime.now().uptimeNanoseconds)
    }

    /// `/org/bluez/hci0/dev_AA_BB_CC_DD_EE_FF` → `AA:BB:CC:DD:EE:FF`.
    static func address(fromPath path: String) -> BluetoothAddress? {
        guard let last = path.split(separator: "/").last, last.hasPrefix("dev_") else { return nil }
        return BluetoothAddress(last.dropFirst(4).split(separator: "_").joined(separator: ":"))
    }
}
