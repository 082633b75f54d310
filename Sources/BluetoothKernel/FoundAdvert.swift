/// A device-found event as it lies in the receive buffer: its fields read,
/// its advertising data left in place. The scanner's path for every advert,
/// so nothing is copied before the AD structures are parsed.
///
/// `data` points into the reader's buffer and is valid only during the
/// handler the advert is passed to.
public struct FoundAdvert {
    /// The controller's index (`hci0` is 0).
    public var controller: UInt16
    /// The advertisement monitor that matched, for `ADV_MONITOR_DEVICE_FOUND`.
    public var monitorHandle: UInt16?
    public var address: UInt64
    public var addressType: UInt8
    public var rssi: Int8
    public var flags: UInt32
    public var data: UnsafeRawBufferPointer

    /// `AA:BB:CC:DD:EE:FF`.
    public var addressText: String { DeviceFound.addressText(address) }

    /// `dev_AA_BB_CC_DD_EE_FF`.
    public var objectPathComponent: String { DeviceFound.objectPathComponent(address) }

    /// `public` or `random`, nil for BR/EDR.
    public var addressTypeText: String? { DeviceFound.addressTypeText(addressType) }

    /// The event with its data copied out, to keep.
    public var owned: DeviceFound {
        DeviceFound(address: address, addressType: addressType, rssi: rssi, flags: flags, data: Array(data))
    }
}
