internal import Cipher

/// Decodes BTHome v2 service data, decrypting with a bindkey when the packet
/// is encrypted (AES-128-CCM from libcrypto).
enum BTHomeDecoder {
    static let serviceUUID: UInt16 = 0xFCD2

    /// `address` is the advertiser's address in display order; the nonce
    /// needs it for encrypted packets.
    static func decode(_ data: [UInt8], bindkey: [UInt8]?, address: [UInt8]?) -> BTHomePacket? {
        guard let info = data.first else { return nil }
        let version = Int(info >> 5)
        var packet = BTHomePacket(
            version: version, encrypted: info & 0x01 != 0, triggerBased: info & 0x04 != 0,
            mac: nil, counter: nil, objects: [], problem: nil)
        guard version == 2 else {
            packet.problem = .unsupportedVersion
            return packet
        }
        var body = Array(data.dropFirst())
        if info & 0x02 != 0 {
            guard body.count >= 6 else {
                packet.problem = .truncated
                return packet
            }
            // The packet carries the address least significant byte first.
            packet.mac = macString(body.prefix(6).reversed())
            body.removeFirst(6)
        }
        if packet.encrypted {
            guard body.count >= 8 else {
                packet.problem = .truncated
                return packet
            }
            let counterBytes = Array(body[body.count - 8..<body.count - 4])
            let tag = Array(body.suffix(4))
            let ciphertext = Array(body.prefix(body.count - 8))
            packet.counter = counterBytes.reversed().reduce(0) { $0 << 8 | UInt32($1) }
            let nonceAddress = packet.mac.flatMap { Hex.bytes($0.split(separator: ":").joined()) } ?? address
            guard let bindkey, let nonceAddress, nonceAddress.count == 6 else {
                packet.problem = .missingBindkey
                return packet
            }
            let nonce = nonceAddress + [0xD2, 0xFC, info] + counterBytes
            guard let plain = AESCCM.open(ciphertext, tag: tag, key: bindkey, nonce: nonce) else {
                packet.problem = .authenticationFailed
                return packet
            }
            body = plain
        }
        var reader = ByteReader(body)
        while !reader.isAtEnd {
            guard let object = readObject(&reader) else {
                packet.problem = .truncated
                break
            }
            packet.objects.append(object)
        }
        return packet
    }

    private static func readObject(_ reader: inout ByteReader) -> BTHomeObject? {
        guard let id = reader.u8(), let kind = BTHomeObjectKind.table[Int(id)] else { return nil }
        var object = BTHomeObject(id: id, name: kind.name, unit: kind.unit, value: .number(0), steps: nil)
        switch kind.encoding {
        case .number(let length, let signed, let factor):
            guard let raw = reader.littleEndian(length) else { return nil }
            let integer = signed ? Double(raw.signExtended(fromBytes: length)) : Double(raw)
            object.value = .number(round(integer * factor, digitsOf: factor))
        case .binary:
            guard let raw = reader.u8() else { return nil }
            object.value = .binary(raw != 0)
        case .button:
            guard let raw = reader.u8() else { return nil }
            object.value = .event(BTHomeObjectKind.buttonEvents[raw] ?? "unknown_\(raw)")
        case .dimmer:
            guard let event = reader.u8(), let steps = reader.u8() else { return nil }
            object.value = .event(BTHomeObjectKind.dimmerEvents[event] ?? "unknown_\(event)")
            object.steps = Int(steps)
        case .timestamp:
            guard let raw = reader.littleEndian(4) else { return nil }
            object.value = .number(Double(raw))
        case .text:
            guard let length = reader.u8(), let bytes = reader.take(Int(length)) else { return nil }
            object.value = .text(String(decoding: bytes, as: UTF8.self))
        case .raw:
            guard let length = reader.u8(), let bytes = reader.take(Int(length)) else { return nil }
            object.value = .raw(Hex.string(bytes))
        }
        return object
    }

    /// Rounds away binary noise from the scale factor (25.06, not 25.060000000000002).
    private static func round(_ value: Double, digitsOf factor: Double) -> Double {
        guard factor < 1 else { return value }
        var scale = 1.0
        var f = factor
        while f < 0.999_999, scale < 1e9 {
            f *= 10
            scale *= 10
        }
        return (value * scale).rounded() / scale
    }
}
