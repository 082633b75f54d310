/// How a beacon or tag is known, whatever address it advertises from
/// (phones and many tags rotate theirs). Parsed from and printed to its text
/// form here and nowhere else: `ibeacon:UUID:MAJOR:MINOR`,
/// `altbeacon:UUID:MAJOR:MINOR`, `eddystone:NAMESPACE:INSTANCE`,
/// `ruuvi:MAC`, `bthome:MAC`, `address:AA:BB:CC:DD:EE:FF` and
/// `irk:FINGERPRINT`. The text is what the store, the CLI and the wire carry.
public enum DeviceIdentity: Sendable, Hashable, LosslessStringConvertible, Codable {
    case iBeacon(uuid: String, major: UInt16, minor: UInt16)
    case altBeacon(uuid: String, major: UInt16, minor: UInt16)
    case eddystone(namespace: String, instance: String)
    /// A Ruuvi tag by the MAC in its payload.
    case ruuvi(mac: String)
    /// A BTHome device by the MAC in its payload, which is also its address.
    case btHome(mac: String)
    /// A device by its (public or static) address, upper case.
    case address(String)
    /// A device with private addresses, by the fingerprint of its Identity Resolving Key.
    case irk(fingerprint: String)

    public init?(_ text: String) {
        guard let colon = text.firstIndex(of: ":") else { return nil }
        let rest = text[text.index(after: colon)...]
        let parts = rest.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        switch text[..<colon] {
        case "ibeacon", "altbeacon":
            guard parts.count == 3, !parts[0].isEmpty, let major = UInt16(parts[1]), let minor = UInt16(parts[2]) else { return nil }
            self = text.hasPrefix("ibeacon") ? .iBeacon(uuid: parts[0], major: major, minor: minor) : .altBeacon(uuid: parts[0], major: major, minor: minor)
        case "eddystone":
            guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else { return nil }
            self = .eddystone(namespace: parts[0], instance: parts[1])
        case "ruuvi", "bthome", "address":
            guard parts.count == 6, parts.allSatisfy({ $0.count == 2 && UInt8($0, radix: 16) != nil }) else { return nil }
            let mac = String(rest)
            self = text.hasPrefix("ruuvi") ? .ruuvi(mac: mac) : text.hasPrefix("bthome") ? .btHome(mac: mac) : .address(mac.uppercased())
        case "irk":
            guard !rest.isEmpty, !rest.contains(":") else { return nil }
            self = .irk(fingerprint: String(rest))
        default:
            return nil
        }
    }

    public var description: String {
        switch self {
        case .iBeacon(let uuid, let major, let minor): "ibeacon:\(uuid):\(major):\(minor)"
        case .altBeacon(let uuid, let major, let minor): "altbeacon:\(uuid):\(major):\(minor)"
        case .eddystone(let namespace, let instance): "eddystone:\(namespace):\(instance)"
        case .ruuvi(let mac): "ruuvi:\(mac)"
        case .btHome(let mac): "bthome:\(mac)"
        case .address(let address): "address:\(address)"
        case .irk(let fingerprint): "irk:\(fingerprint)"
        }
    }

    /// The advertiser address this identity names: an address pairing's,
    /// or a BTHome device's (its payload's MAC is its address); upper case.
    public var advertiserAddress: String? {
        switch self {
        case .address(let address): address
        case .btHome(let mac): mac.uppercased()
        default: nil
        }
    }

    public var isIRK: Bool {
        if case .irk = self { true } else { false }
    }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let identity = DeviceIdentity(text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not a device identity: \(text.prefix(80))"))
        }
        self = identity
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
