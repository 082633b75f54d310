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
            macBytes: nil, counter: nil, objects: [], problem: nil)
        guard version == 2 else {
            packet.problem = .unsupportedVersion
            return packet
        }
        var start = 1
        if info & 0x02 != 0 {
            guard data.count >= 7 else {
                packet.problem = .truncated
                return packet
            }
            // The packet carries the address least significant byte first.
            packet.macBytes = ByteString(data[1..<7].reversed())
            start = 7
        }
        var reader = ByteReader(data, offset: start)
        if packet.encrypted {
            guard data.count - start >= 8 else {
                packet.problem = .truncated
                return packet
            }
            let counterBytes = Array(data[data.count - 8..<data.count - 4])
            let tag = Array(data.suffix(4))
            let ciphertext = Array(data[start..<data.count - 8])
            packet.counter = counterBytes.reversed().reduce(0) { $0 << 8 | UInt32($1) }
            let nonceAddress = packet.macBytes?.bytes ?? address
            guard let bindkey, let nonceAddress, nonceAddress.count == 6 else {
                packet.problem = .missingBindkey
                return packet
            }
            let nonce = nonceAddress + [0xD2, 0xFC, info] + counterBytes
            guard let plain = AESCCM.open(ciphertext, tag: tag, key: bindkey, nonce: nonce) else {
                packet.problem = .authenticationFailed
                return packet
            }
            reader = ByteReader(plain)
        }
        packet.objects.reserveCapacity(reader.remaining / 2)
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
        var object = BTHomeObject(id: id, value: .number(0), steps: nil)
        switch kind.encoding {
        case .number(let length, let signed, let factor):
            guard let raw = reader.littleEndian(length) else { return nil }
            let integer = signed ? Double(raw.signExtended(fromBytes: length)) : Double(raw)
            let scale = kind.roundingScale
            object.value = .number(scale == 1 ? integer * factor : (integer * factor * scale).rounded() / scale)
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
}
