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
    /// reply to command `opcode`, with its status (0 is success) and, for a
    /// complete reply, the command's return parameters.
    case commandReply(opcode: UInt16, status: UInt8, returned: [UInt8])
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
        switch try frame(bytes) {
        case .advert(let advert):
            let found = advert.owned
            return (advert.controller, advert.monitorHandle.map { .monitorDeviceFound(handle: $0, found) } ?? .deviceFound(found))
        case .event(let index, let event):
            return (index, event)
        }
    }

    public static func decode(_ bytes: [UInt8]) throws(ManagementEventError) -> (index: UInt16, event: ManagementEvent) {
        let result = bytes.withUnsafeBytes { raw in Result { () throws(ManagementEventError) in try decode(raw) } }
        return try result.get()
    }

    /// One datagram, read in place: an advert whose data stays in `bytes`,
    /// or any other event.
    enum Frame {
        case advert(FoundAdvert)
        case event(index: UInt16, ManagementEvent)
    }

    static func frame(_ bytes: UnsafeRawBufferPointer) throws(ManagementEventError) -> Frame {
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
            return .advert(try advert(parameters, code: code, controller: index, monitorHandle: nil))
        case monitorDeviceFoundCode:
            guard parameters.count >= 2 else { throw .truncatedParameters(code: code, length: parameters.count) }
            let handle = parameters.littleEndian(UInt16.self, at: 0)
            return .advert(try advert(UnsafeRawBufferPointer(rebasing: parameters[2...]), code: code, controller: index, monitorHandle: handle))
        case commandCompleteCode, commandStatusCode:
            // Opcode (2) and status (1); a complete reply's return values follow.
            guard parameters.count >= 3 else { throw .truncatedParameters(code: code, length: parameters.count) }
            return .event(index: index, .commandReply(opcode: parameters.littleEndian(UInt16.self, at: 0), status: parameters[2],
                                                      returned: code == commandCompleteCode ? Array(parameters[3...]) : []))
        default:
            return .event(index: index, .other(code: code))
        }
    }

    private static func advert(
        _ bytes: UnsafeRawBufferPointer, code: UInt16, controller: UInt16, monitorHandle: UInt16?
    ) throws(ManagementEventError) -> FoundAdvert {
        guard bytes.count >= deviceFoundSize else { throw .truncatedParameters(code: code, length: bytes.count) }
        let dataLength = Int(bytes.littleEndian(UInt16.self, at: 12))
        guard bytes.count - deviceFoundSize == dataLength else {
            throw .advertisingDataMismatch(declared: dataLength, actual: bytes.count - deviceFoundSize)
        }
        // The address comes least significant byte first: six bytes, then
        // the address type, which the mask drops.
        let address = bytes.littleEndian(UInt64.self, at: 0) & 0xFFFF_FFFF_FFFF
        return FoundAdvert(
            controller: controller, monitorHandle: monitorHandle, address: address, addressType: bytes[6],
            rssi: Int8(bitPattern: bytes[7]), flags: bytes.littleEndian(UInt32.self, at: 8),
            data: UnsafeRawBufferPointer(rebasing: bytes[deviceFoundSize...]))
    }
}

extension UnsafeRawBufferPointer {
    func littleEndian<T: FixedWidthInteger>(_: T.Type, at offset: Int) -> T {
        T(littleEndian: loadUnaligned(fromByteOffset: offset, as: T.self))
    }
}
