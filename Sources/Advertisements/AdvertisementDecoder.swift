internal import Basics

/// Turns manufacturer and service data, as BlueZ reports them, into typed
/// advertisements. Pure functions: no I/O, no state (replay protection for
/// BTHome is `BTHomeReplayGuard`, kept by the caller).
public enum AdvertisementDecoder {
    static let eddystoneUUID: UInt16 = 0xFEAA

    /// Decodes manufacturer data; `data` is the payload after the company id,
    /// as in BlueZ's `ManufacturerData` dictionary.
    public static func decode(companyID: UInt16, _ data: [UInt8]) -> Advertisement {
        if companyID == IBeacon.companyID, let beacon = IBeacon(data) { return .iBeacon(beacon) }
        if companyID == RuuviReading.companyID, let reading = RuuviReading(data) { return .ruuvi(reading) }
        // AltBeacon may use any company id; it is recognised by its beacon code.
        if let beacon = AltBeacon(companyID: companyID, data) { return .altBeacon(beacon) }
        return .unknown(.manufacturer(companyID: companyID, data: data))
    }

    /// Decodes service data keyed by `uuid` (BlueZ's 128-bit form, or a
    /// 16-bit short form such as `feaa`). A BTHome packet that is encrypted
    /// needs the device's `bindkey` and `address` (display order).
    public static func decode(serviceUUID uuid: String, _ data: [UInt8], bindkey: [UInt8]? = nil, address: [UInt8]? = nil) -> Advertisement {
        switch shortUUID(uuid) {
        case eddystoneUUID:
            if let frame = eddystone(data) { return frame }
        case BTHomeDecoder.serviceUUID:
            if let packet = BTHomeDecoder.decode(data, bindkey: bindkey, address: address) { return .btHome(packet) }
        default:
            break
        }
        return .unknown(.service(uuid: uuid, data: data))
    }

    private static func eddystone(_ frame: [UInt8]) -> Advertisement? {
        switch frame.first {
        case 0x00: EddystoneUID(frame).map(Advertisement.eddystoneUID)
        case 0x10: EddystoneURL(frame).map(Advertisement.eddystoneURL)
        case 0x20: EddystoneTLM(frame).map(Advertisement.eddystoneTLM)
        case 0x30: EddystoneEID(frame).map(Advertisement.eddystoneEID)
        default: nil
        }
    }

    /// `0000feaa-0000-1000-8000-00805f9b34fb` or `feaa` → 0xFEAA; nil for a
    /// UUID outside the Bluetooth base range. Works on the UTF-8 bytes, with
    /// no allocation, since it runs for every service-data advert.
    public static func shortUUID(_ uuid: String) -> UInt16? {
        var uuid = uuid
        return uuid.withUTF8 { bytes -> UInt16? in
            func hex(_ range: Range<Int>) -> UInt16? {
                var value: UInt16 = 0
                for i in range {
                    guard let digit = HexDigit.value(bytes[i]) else { return nil }
                    value = value << 4 | UInt16(digit)
                }
                return value
            }
            switch bytes.count {
            case 4: return hex(0..<4)
            case 6 where bytes[0] == 0x30 && bytes[1] | 0x20 == 0x78: return hex(2..<6)
            case 36:
                guard hex(0..<4) == 0 else { return nil }
                let base = Array("-0000-1000-8000-00805f9b34fb".utf8)
                for (i, c) in base.enumerated() where bytes[8 + i] | (c >= 0x61 ? 0x20 : 0) != c { return nil }
                return hex(4..<8)
            default: return nil
            }
        }
    }
}
