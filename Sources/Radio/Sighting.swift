public import Vocabulary

/// One update about one Bluetooth device, as BlueZ reported it: an advert
/// seen, or just a new RSSI. It carries the device's current advertising
/// data, so a consumer can decode any sighting on its own.
public struct Sighting: Sendable, Hashable {
    /// The advertiser's address, with its type when BlueZ said.
    public var address: BluetoothAddress
    /// Received signal strength in dBm.
    public var rssi: Int?
    /// Advertised transmit power in dBm.
    public var txPower: Int?
    public var name: String?
    /// Manufacturer data by company id, payload after the id.
    public var manufacturerData: [UInt16: [UInt8]]
    /// Service data by UUID.
    public var serviceData: [BluetoothUUID: [UInt8]]
    /// Whether BlueZ has the device paired (such devices are never evicted).
    public var paired: Bool
    /// When the update arrived, on the monotonic clock, in nanoseconds.
    public var uptimeNanoseconds: UInt64

    public init(
        address: BluetoothAddress, rssi: Int? = nil, txPower: Int? = nil, name: String? = nil,
        manufacturerData: [UInt16: [UInt8]] = [:], serviceData: [BluetoothUUID: [UInt8]] = [:], paired: Bool = false,
        uptimeNanoseconds: UInt64
    ) {
        self.address = address
        self.rssi = rssi
        self.txPower = txPower
        self.name = name
        self.manufacturerData = manufacturerData
        self.serviceData = serviceData
        self.paired = paired
        self.uptimeNanoseconds = uptimeNanoseconds
    }
}
