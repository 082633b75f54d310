import Advertisements
public import BlueZ

extension Pairing {
    /// What a passive scan watches for to hear this device: its identity's
    /// bytes where the format puts them. Nil for an address pairing, whose
    /// adverts cannot be told apart by content.
    public var monitorPattern: MonitorPattern? {
        let parts = identity.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        func beacon(_ prefix: [UInt8], offset: UInt8) -> MonitorPattern? {
            guard parts.count == 4, let uuid = Advertisement.parseHex(parts[1].filter { $0 != "-" }), uuid.count == 16,
                  let major = UInt16(parts[2]), let minor = UInt16(parts[3]) else { return nil }
            let id = uuid + [UInt8(major >> 8), UInt8(major & 0xFF), UInt8(minor >> 8), UInt8(minor & 0xFF)]
            return MonitorPattern(adType: 0xFF, offset: offset, content: prefix + id)
        }
        switch parts.first {
        case "ibeacon": return beacon([0x4C, 0x00, 0x02, 0x15], offset: 0)
        // Any company id, then the beacon code.
        case "altbeacon": return beacon([0xBE, 0xAC], offset: 2)
        case "eddystone":
            // Service data AA FE, frame type, TX power, then namespace and instance.
            guard parts.count == 3, let namespace = Advertisement.parseHex(parts[1]), namespace.count == 10, let instance = Advertisement.parseHex(parts[2]), instance.count == 6 else { return nil }
            return MonitorPattern(adType: 0x16, offset: 4, content: namespace + instance)
        // Every tag of the kind; the address is matched afterwards.
        case "ruuvi": return MonitorPattern(adType: 0xFF, content: [0x99, 0x04])
        case "bthome": return MonitorPattern(adType: 0x16, content: [0xD2, 0xFC])
        default: return nil
        }
    }
}
