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
    public var addressText: String { Self.addressText(address) }

    /// `dev_AA_BB_CC_DD_EE_FF`, the device's name in BlueZ's object paths.
    public var objectPathComponent: String { Self.objectPathComponent(address) }

    /// `public` or `random` (as Device1's AddressType), nil for BR/EDR.
    public var addressTypeText: String? { Self.addressTypeText(addressType) }

    static func addressText(_ address: UInt64) -> String {
        String(unsafeUninitializedCapacity: 17) { addressBytes(address, separator: UInt8(ascii: ":"), into: $0) }
    }

    static func objectPathComponent(_ address: UInt64) -> String {
        String(unsafeUninitializedCapacity: 21) { text in
            for (i, byte) in "dev_".utf8.enumerated() { text[i] = byte }
            return 4 + addressBytes(address, separator: UInt8(ascii: "_"), into: UnsafeMutableBufferPointer(rebasing: text[4...]))
        }
    }

    static func addressTypeText(_ type: UInt8) -> String? {
        switch type {
        case 1: "public"
        case 2: "random"
        default: nil
        }
    }

    /// Writes the six bytes in hex, most significant first, `separator`
    /// between them: 17 bytes.
    private static func addressBytes(_ address: UInt64, separator: UInt8, into text: UnsafeMutableBufferPointer<UInt8>) -> Int {
        let hex: StaticString = "0123456789ABCDEF"
        let digits = UnsafeRawBufferPointer(start: hex.utf8Start, count: 16)
        for i in 0..<6 {
            let byte = UInt8(truncatingIfNeeded: address >> (8 * UInt64(5 - i)))
            text[i * 3] = digits[Int(byte >> 4)]
            text[i * 3 + 1] = digits[Int(byte & 15)]
            if i < 5 { text[i * 3 + 2] = separator }
        }
        return 17
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
