import Advertisements
public import Cipher
import Logging
public import Radio
public import Vocabulary

/// A beacon or sensor tag the user paired, by identity rather than by
/// Bluetooth address, since phones and many tags rotate their addresses.
public struct Pairing: Sendable, Equatable, Codable {
    public enum Role: String, Sendable, Codable, CaseIterable {
        /// The car's own beacon: its presence starts and ends trips.
        case vehicle
        /// A sensor tag whose readings are recorded during trips.
        case sensor
    }

    public var id: Int64
    public var identity: DeviceIdentity
    public var role: Role
    public var label: String
    /// The pairing's key (hex), never printed: a BTHome encryption key, or
    /// for an `irk:` pairing the Identity Resolving Key.
    public var bindkey: String?

    package enum CodingKeys: String, CodingKey { case id, identity, role, label, hasBindkey = "has_bindkey", hasIRK = "has_irk" }

    /// The longest label, in characters: a line of `beacons` and a chart's title.
    public static let maximumLabelLength = 64

    /// Why `label` cannot be a pairing's label (empty, too long, or holding
    /// a control character), or nil when it can.
    public static func labelProblem(_ label: String) -> String? {
        if label.isEmpty { return "is empty" }
        if label.count > maximumLabelLength { return "has \(label.count) characters; at most \(maximumLabelLength)" }
        if !TerminalText.isPlain(label) { return "holds a control character (\(TerminalText.escaped(label)))" }
        return nil
    }

    /// The id a sensor's samples carry (`pairing-3`).
    public var sensorID: SensorID { SensorID(pairing: id) }

    /// Whether this pairing is by Identity Resolving Key (its key column holds the IRK).
    public var isIRK: Bool { identity.isIRK }

    /// The Identity Resolving Key of an `irk:` pairing.
    public var irk: IdentityResolvingKey? {
        guard isIRK else { return nil }
        return bindkey.flatMap(Advertisement.parseHex).flatMap(IdentityResolvingKey.init)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(identity, forKey: .identity)
        try container.encode(role, forKey: .role)
        try container.encode(label, forKey: .label)
        try container.encode(bindkey != nil && !isIRK, forKey: .hasBindkey)
        if isIRK { try container.encode(bindkey != nil, forKey: .hasIRK) }
    }

    public init(id: Int64, identity: DeviceIdentity, role: Role, label: String, bindkey: String?) {
        self.id = id
        self.identity = identity
        self.role = role
        self.label = label
        self.bindkey = bindkey
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(Int64.self, forKey: .id)
        identity = try container.decode(DeviceIdentity.self, forKey: .identity)
        role = try container.decode(Role.self, forKey: .role)
        label = try container.decode(String.self, forKey: .label)
        bindkey = nil
    }

    /// Whether `sighting` comes from this paired device: by identity decoded
    /// from its adverts, or by address for an address pairing.
    public func matches(_ sighting: Sighting) -> Bool {
        if case .address(let address) = identity { return address.sameDevice(as: sighting.address) }
        return Self.identities(of: sighting).contains(identity)
    }

    /// The identities a sighting's adverts carry.
    public static func identities(of sighting: Sighting) -> [DeviceIdentity] {
        sighting.manufacturerData.compactMap { AdvertisementDecoder.decode(companyID: $0.key, $0.value).identity }
            + sighting.serviceData.compactMap { AdvertisementDecoder.decode(serviceUUID: $0.key, $0.value).identity }
    }
}
