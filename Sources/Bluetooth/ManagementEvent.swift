/// One event read from the kernel's Bluetooth management channel
/// (`HCI_CHANNEL_CONTROL`), as `doc/mgmt-api.txt` lays it out: a 6-byte
/// header (event code, controller index, parameter length, all
/// little-endian) and the parameters.
///
/// The advert-carrying events and command replies are decoded; the rest
/// are `.other`.
public enum ManagementEvent: Sendable, Equatable {
    /// `MGMT_EV_DEVICE_FOUND` (0x0012), sent for every advert while the
    /// kernel scans for discovery.
    case deviceFound(DeviceFound)
    /// `MGMT_EV_ADV_MONITOR_DEVICE_FOUND` (0x002F): the same, for an advert
    /// that matched a registered advertisement monitor.
    case monitorDeviceFound(handle: UInt16, DeviceFound)
    /// `MGMT_EV_CMD_COMPLETE` (0x0001) or `MGMT_EV_CMD_STATUS` (0x0002): the
    /// reply to command `opcode`, with its status (0 is success).
    case commandReply(opcode: UInt16, status: UInt8)
    case other(code: UInt16)

    static let commandCompleteCode: UInt16 = 0x0001
    static let commandStatusCode: UInt16 = 0x0002
    public static let deviceFoundCode: UInt16 = 0x0012
    public static let monitorDeviceFoundCode: UInt16 = 0x002F
    static let headerSize = 6
    /// Address (6), address type (1), RSSI (1), flags (4), EIR length (2).
    static let deviceFoundSize = 14

    /// Decodes one event as read from the socket: a whole datagram.
    public static func decode(_ bytes: UnsafeRawBufferPointer) throws(ManagementEventError) -> (index: UInt16, event: ManagementEvent) {
        guard bytes.count >= headerSize else { throw .truncatedHeader(length: bytes.count) }
        let code = bytes.littleEndian(UInt16.self, at: 0)
        let index = bytes.littleEndian(UInt16.self, at: 2)
        let length = Int(bytes.littleEndian(UInt16.self, at: 4))
        guard bytes.count - headerSize == length else {
            throw .lengthMismatch(code: code, declared: length, actual: bytes.count - headerSize)
        }
        let parameters = UnsafeRawBufferPointer(rebasing: bytes[headerSize...])
        switch code {
        case deviceFoundCode:
            return (index, .deviceFound(try deviceFound(parameters, code: code)))
        case monitorDeviceFoundCode:
            guard parameters.count >= 2 else { throw .truncatedParameters(code: code, length: parameters.count) }
            let handle = parameters.littleEndian(UInt16.self, at: 0)
            return (index, .monitorDeviceFound(handle: handle, try deviceFound(UnsafeRawBufferPointer(rebasing: parameters[2...]), code: code)))
        case commandCompleteCode, commandStatusCode:
            // Opcode (2) and status (1); a complete reply's return values follow.
            guard parameters.count >= 3 else { throw .truncatedParameters(code: code, length: parameters.count) }
            return (index, .commandReply(opcode: parameters.littleEndian(UInt16.self, at: 0), status: parameters[2]))
        default:
            return (index, .other(code: code))
        }
    }

    public static func decode(_ bytes: [UInt8]) throws(ManagementEventError) -> (index: UInt16, event: ManagementEvent) {
        let result = bytes.withUnsafeBytes { raw in Result { () throws(ManagementEventError) in try decode(raw) } }
        return try result.get()
    }

    private static func deviceFound(_ bytes: UnsafeRawBufferPointer, code: UInt16) throws(ManagementEventError) -> DeviceFound {
        guard bytes.count >= deviceFoundSize else { throw .truncatedParameters(code: code, length: bytes.count) }
        let dataLength = Int(bytes.littleEndian(UInt16.self, at: 12))
        guard bytes.count - deviceFoundSize == dataLength else {
            throw .advertisingDataMismatch(declared: dataLength, actual: bytes.count - deviceFoundSize)
        }
        // The address comes least significant byte first.
        let address = (0..<6).reduce(UInt64(0)) { $0 | UInt64(bytes[$1]) << (8 * UInt64($1)) }
        return DeviceFound(
            address: address, addressType: bytes[6], rssi: Int8(bitPattern: bytes[7]),
            flags: bytes.littleEndian(UInt32.self, at: 8), data: Array(bytes[deviceFoundSize...]))
    }
}

extension UnsafeRawBufferPointer {
    func littleEndian<T: FixedWidthInteger>(_: T.Type, at offset: Int) -> T {
        T(littleEndian: loadUnaligned(fromByteOffset: offset, as: T.self))
    }
}
