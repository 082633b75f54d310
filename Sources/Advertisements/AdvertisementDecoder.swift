internal import Basics
public import Vocabulary

/// Turns manufacturer and service data, as BlueZ reports them, into typed
/// advertisements. Pure functions: no I/O, no state (replay protection for
/// BTHome is `BTHomeReplayGuard`, kept by the caller).
public enum AdvertisementDecoder {
    static let eddystoneUUID: UInt16 = 0xFEAA

    /// Decodes manufacturer data; `data` is the payload after the company id,
    /// as in BlueZ's `ManufacturerData` dictionary.
    public static func decode(companyID: UInt16, _ data: [UInt8]) -> Advertisement {
        if companyID == IBeacon.companyID, let beacon = IBeacon(data) { return .iBeacon(beacon) }
        if companyID == RuuviReading.companyID {
            if let reading = RuuviReading(data) { return .ruuvi(reading) }
            if let reading = RuuviAirReading(data) { return .ruuviAir(reading) }
            if let reading = RuuviRAWv1(data) { return .ruuviV1(reading) }
        }
        // AltBeacon may use any company id; it is recognised by its beacon code.
        if let beacon = AltBeacon(companyID: companyID, data) { return .altBeacon(beacon) }
        return .unknown(.manufacturer(companyID: companyID, data: data))
    }

    /// Decodes service data keyed by `uuid`. A BTHome packet that is encrypted
    /// needs the device's `bindkey` and `address` (display order).
    public static func decode(serviceUUID uuid: BluetoothUUID, _ data: [UInt8], bindkey: [UInt8]? = nil, address: [UInt8]? = nil) -> Advertisement {
        switch uuid.short {
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
}
