public import Vocabulary
/// The AD structures of one advert (the EIR format: length, type, data),
/// reduced to what Device1 would show: name, transmit power, manufacturer
/// data by company id and service data by 128-bit UUID.
///
/// A structure that runs past the end, or a zero length, ends the parse;
/// what came before it is kept, as bluetoothd does.
public struct AdvertisingData: Sendable, Equatable {
    public var name: String?
    public var txPower: Int?
    public var manufacturerData: [UInt16: [UInt8]] = [:]
    public var serviceData: [BluetoothUUID: [UInt8]] = [:]
    /// Whether the parse stopped at a malformed structure.
    public var truncated = false

    public init(_ bytes: [UInt8]) {
        self = bytes.withUnsafeBytes { AdvertisingData($0) }
    }

    /// Parses the structures where they lie (the management channel's
    /// receive buffer); only what is kept is copied.
    public init(_ bytes: UnsafeRawBufferPointer) {
        var offset = 0
        while offset < bytes.count {
            let length = Int(bytes[offset])
            guard length > 0 else { break }
            guard offset + 1 + length <= bytes.count else { truncated = true; break }
            apply(type: bytes[offset + 1], UnsafeRawBufferPointer(rebasing: bytes[(offset + 2)..<(offset + 1 + length)]))
            offset += 1 + length
        }
    }

    private mutating func apply(type: UInt8, _ body: UnsafeRawBufferPointer) {
        switch type {
        case 0x08 where name == nil, 0x09:
            name = String(decoding: body, as: UTF8.self)
        case 0x0A where body.count == 1:
            txPower = Int(Int8(bitPattern: body[0]))
        case 0xFF where body.count >= 2:
            manufacturerData[UInt16(body[0]) | UInt16(body[1]) << 8] = Array(UnsafeRawBufferPointer(rebasing: body[2...]))
        case 0x16 where body.count >= 2, 0x20 where body.count >= 4, 0x21 where body.count >= 16:
            let size = type == 0x16 ? 2 : type == 0x20 ? 4 : 16
            if let uuid = BluetoothUUID(littleEndian: UnsafeRawBufferPointer(rebasing: body[..<size])) {
                serviceData[uuid] = Array(UnsafeRawBufferPointer(rebasing: body[size...]))
            }
        default:
            break
        }
    }
}
