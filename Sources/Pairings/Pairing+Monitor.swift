import Advertisements
public import Radio
import Vocabulary

extension Pairing {
    /// What a passive scan watches for to hear this device: its identity's
    /// bytes where the format puts them. Nil for an address pairing, whose
    /// adverts cannot be told apart by content.
    public var monitorPattern: MonitorPattern? {
        func beacon(_ prefix: [UInt8], offset: UInt8, uuid: String, major: UInt16, minor: UInt16) -> MonitorPattern? {
            guard let uuid = Advertisement.parseHex(uuid.filter { $0 != "-" }), uuid.count == 16 else { return nil }
            let id = uuid + [UInt8(major >> 8), UInt8(major & 0xFF), UInt8(minor >> 8), UInt8(minor & 0xFF)]
            return MonitorPattern(adType: 0xFF, offset: offset, content: prefix + id)
        }
        switch identity {
        case .iBeacon(let uuid, let major, let minor): return beacon([0x4C, 0x00, 0x02, 0x15], offset: 0, uuid: uuid, major: major, minor: minor)
        // Any company id, then the beacon code.
        case .altBeacon(let uuid, let major, let minor): return beacon([0xBE, 0xAC], offset: 2, uuid: uuid, major: major, minor: minor)
        case .eddystone(let namespace, let instance):
            // Service data AA FE, frame type, TX power, then namespace and instance.
            guard let namespace = Advertisement.parseHex(namespace), namespace.count == 10, let instance = Advertisement.parseHex(instance), instance.count == 6 else { return nil }
            return MonitorPattern(adType: 0x16, offset: 4, content: namespace + instance)
        // Every tag of the kind; the address is matched afterwards.
        case .ruuvi: return MonitorPattern(adType: 0xFF, content: [0x99, 0x04])
        case .btHome: return MonitorPattern(adType: 0x16, content: [0xD2, 0xFC])
        case .address, .irk: return nil
        }
    }
}
