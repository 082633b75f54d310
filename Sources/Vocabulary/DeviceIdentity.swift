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
    /// A device by its (public or static) address; of no type, so that it
    /// matches the address whatever type an advert says.
    case address(BluetoothAddress)
    /// A device with private addresses, by the fingerprint of its Identity Resolving Key.
    case irk(fingerprint: String)

    /// The text before the first colon.
    private enum Kind: String {
        case ibeacon, altbeacon, eddystone, ruuvi, bthome, address, irk
    }

    public init?(_ text: String) {
        guard let colon = text.firstIndex(of: ":"), let kind = Kind(rawValue: String(text[..<colon])) else { return nil }
        let value = String(text[text.index(after: colon)...])
        let parts = value.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        switch kind {
        case .ibeacon, .altbeacon:
            guard parts.count == 3, !parts[0].isEmpty, let major = UInt16(parts[1]), let minor = UInt16(parts[2]) else { return nil }
            self = kind == .ibeacon ? .iBeacon(uuid: parts[0], major: major, minor: minor) : .altBeacon(uuid: parts[0], major: major, minor: minor)
        case .eddystone:
            guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else { return nil }
            self = .eddystone(namespace: parts[0], instance: parts[1])
        case .ruuvi, .bthome:
            guard BluetoothAddress(value) != nil else { return nil }
            self = kind == .ruuvi ? .ruuvi(mac: value) : .btHome(mac: value)
        case .address:
            guard let address = BluetoothAddress(value) else { return nil }
            self = .address(address)
        case .irk:
            guard !value.isEmpty, parts.count == 1 else { return nil }
            self = .irk(fingerprint: value)
        }
    }

    public var description: String {
        switch self {
        case .iBeacon(let uuid, let major, let minor): "\(Kind.ibeacon.rawValue):\(uuid):\(major):\(minor)"
        case .altBeacon(let uuid, let major, let minor): "\(Kind.altbeacon.rawValue):\(uuid):\(major):\(minor)"
        case .eddystone(let namespace, let instance): "\(Kind.eddystone.rawValue):\(namespace):\(instance)"
        case .ruuvi(let mac): "\(Kind.ruuvi.rawValue):\(mac)"
        case .btHome(let mac): "\(Kind.bthome.rawValue):\(mac)"
        case .address(let address): "\(Kind.address.rawValue):\(address)"
        case .irk(let fingerprint): "\(Kind.irk.rawValue):\(fingerprint)"
        }
    }

    /// The advertiser address this identity names: an address pairing's,
    /// or a BTHome device's (its payload's MAC is its address).
    public var advertiserAddress: BluetoothAddress? {
        switch self {
        case .address(let address): address
        case .btHome(let mac): BluetoothAddress(mac)
        default: nil
        }
    }

    /// The identity of a device known by its address, whatever its type.
    public static func address(of address: BluetoothAddress) -> DeviceIdentity {
        .address(BluetoothAddress(value: address.value))
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
