/// The parameters of a device-found event: who advertised, how strongly,
/// and the advertising data (with the scan response, when the kernel
/// merged one in).
public struct DeviceFound: Sendable, Equatable {
    /// The 48-bit address, most significant byte in the highest bits.
    public var address: UInt64
    /// 0 BR/EDR, 1 LE public, 2 LE random.
    public var addressType: UInt8
    /// dBm; 127 means not available.
    public var rssi: Int8
    /// `MGMT_DEV_FOUND_*` flags.
    public var flags: UInt32
    /// AD structures (EIR format).
    public var data: [UInt8]

    public init(address: UInt64, addressType: UInt8, rssi: Int8, flags: UInt32, data: [UInt8]) {
        self.address = address
        self.addressType = addressType
        self.rssi = rssi
        self.flags = flags
        self.data = data
    }

    /// `AA:BB:CC:DD:EE:FF`, as BlueZ writes addresses.
    public var addressText: String { String(decoding: addressBytes(separator: UInt8(ascii: ":")), as: UTF8.self) }

    /// `dev_AA_BB_CC_DD_EE_FF`, the device's name in BlueZ's object paths.
    public var objectPathComponent: String {
        String(decoding: Array("dev_".utf8) + addressBytes(separator: UInt8(ascii: "_")), as: UTF8.self)
    }

    private func addressBytes(separator: UInt8) -> [UInt8] {
        let hex = Array("0123456789ABCDEF".utf8)
        var text = [UInt8](repeating: separator, count: 17)
        for i in 0..<6 {
            let byte = UInt8(truncatingIfNeeded: address >> (8 * UInt64(5 - i)))
            text[i * 3] = hex[Int(byte >> 4)]
            text[i * 3 + 1] = hex[Int(byte & 15)]
        }
        return text
    }

    /// `public` or `random` (as Device1's AddressType), nil for BR/EDR.
    public var addressTypeText: String? {
        switch addressType {
        case 1: "public"
        case 2: "random"
        default: nil
        }
    }

    /// The event's encoding, header included: for replaying recorded events.
    public func encoded(index: UInt16, monitorHandle: UInt16? = nil) -> [UInt8] {
        var parameters: [UInt8] = []
        if let monitorHandle { parameters += Self.littleEndian(monitorHandle) }
        parameters += (0..<6).map { UInt8(truncatingIfNeeded: address >> (8 * UInt64($0))) }
        parameters += [addressType, UInt8(bitPattern: rssi)]
        parameters += withUnsafeBytes(of: flags.littleEndian, Array.init)
        parameters += Self.littleEndian(UInt16(data.count)) + data
        let code = monitorHandle == nil ? ManagementEvent.deviceFoundCode : ManagementEvent.monitorDeviceFoundCode
        return Self.littleEndian(code) + Self.littleEndian(index) + Self.littleEndian(UInt16(parameters.count)) + parameters
    }

    private static func littleEndian(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xff), UInt8(value >> 8)] }
}
