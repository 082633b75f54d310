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
    public var serviceData: [String: [UInt8]] = [:]
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
        case 0x16 where body.count >= 2:
            serviceData[Self.uuid(UnsafeRawBufferPointer(rebasing: body[..<2]))] = Array(UnsafeRawBufferPointer(rebasing: body[2...]))
        case 0x20 where body.count >= 4:
            serviceData[Self.uuid(UnsafeRawBufferPointer(rebasing: body[..<4]))] = Array(UnsafeRawBufferPointer(rebasing: body[4...]))
        case 0x21 where body.count >= 16:
            serviceData[Self.uuid(UnsafeRawBufferPointer(rebasing: body[..<16]))] = Array(UnsafeRawBufferPointer(rebasing: body[16...]))
        default:
            break
        }
    }

    /// A 16-, 32- or 128-bit UUID (little-endian on air) as BlueZ writes it:
    /// the short forms on the Bluetooth base UUID.
    static func uuid(_ bytes: UnsafeRawBufferPointer) -> String {
        let hex = Array("0123456789abcdef".utf8)
        var full = bytes.count == 16 ? Array(bytes.reversed())
            : [UInt8](repeating: 0, count: 4 - bytes.count) + bytes.reversed() + Self.baseTail
        if full.count != 16 { full = [UInt8](repeating: 0, count: 16) }
        var text: [UInt8] = []
        text.reserveCapacity(36)
        for (i, byte) in full.enumerated() {
            if i == 4 || i == 6 || i == 8 || i == 10 { text.append(UInt8(ascii: "-")) }
            text.append(hex[Int(byte >> 4)])
            text.append(hex[Int(byte & 15)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// `-0000-1000-8000-00805f9b34fb`, the Bluetooth base UUID after its first 32 bits.
    private static let baseTail: [UInt8] = [0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0x80, 0x5f, 0x9b, 0x34, 0xfb]
}
