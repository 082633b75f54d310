public import Vocabulary

/// One decoded advertising payload. Formats not recognised come back as
/// `.unknown` with their bytes, never as an error.
public enum Advertisement: Sendable, Hashable {
    case iBeacon(IBeacon)
    case altBeacon(AltBeacon)
    case eddystoneUID(EddystoneUID)
    case eddystoneURL(EddystoneURL)
    case eddystoneTLM(EddystoneTLM)
    case eddystoneEID(EddystoneEID)
    case ruuvi(RuuviReading)
    /// Ruuvi's data format 3 (older RuuviTag firmware).
    case ruuviV1(RuuviRAWv1)
    /// Ruuvi Air's data formats 6 and E1.
    case ruuviAir(RuuviAirReading)
    case btHome(BTHomePacket)
    case unknown(Payload)

    /// Where an advertising payload came from: manufacturer data (keyed by
    /// company id) or service data (keyed by UUID).
    public enum Payload: Sendable, Hashable {
        case manufacturer(companyID: UInt16, data: [UInt8])
        case service(uuid: BluetoothUUID, data: [UInt8])
    }

    /// The format's short name, as used in JSON and tables.
    public var format: String {
        switch self {
        case .iBeacon: "ibeacon"
        case .altBeacon: "altbeacon"
        case .eddystoneUID: "eddystone-uid"
        case .eddystoneURL: "eddystone-url"
        case .eddystoneTLM: "eddystone-tlm"
        case .eddystoneEID: "eddystone-eid"
        case .ruuvi: "ruuvi"
        case .ruuviV1: "ruuvi-v1"
        case .ruuviAir: "ruuvi-air"
        case .btHome: "bthome"
        case .unknown: "unknown"
        }
    }

    /// A stable identity for pairing that does not depend on the (often
    /// rotating) Bluetooth address: `ibeacon:UUID:MAJOR:MINOR`,
    /// `eddystone:NAMESPACE:INSTANCE`, `altbeacon:UUID:MAJOR:MINOR`, or the
    /// device's own MAC from the payload for Ruuvi and BTHome.
    public var identity: DeviceIdentity? {
        switch self {
        case .iBeacon(let b): .iBeacon(uuid: b.uuid, major: b.major, minor: b.minor)
        case .altBeacon(let b): .altBeacon(uuid: b.uuid, major: b.major, minor: b.minor)
        case .eddystoneUID(let b): .eddystone(namespace: b.namespace, instance: b.instance)
        case .ruuvi(let r): r.mac.map { .ruuvi(mac: $0) }
        // Format 6 carries half a MAC, too little to tell devices apart; E1 all of it.
        case .ruuviAir(let r): r.dataFormat == "E1" ? r.mac.map { .ruuvi(mac: $0) } : nil
        case .btHome(let p): p.mac.map { .btHome(mac: $0) }
        case .eddystoneURL, .eddystoneTLM, .eddystoneEID, .ruuviV1, .unknown: nil
        }
    }
}
