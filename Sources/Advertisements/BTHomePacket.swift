/// A BTHome v2 service-data packet (UUID 0xFCD2).
public struct BTHomePacket: Sendable, Hashable, Encodable {
    public var version: Int
    public var encrypted: Bool
    /// The device sends only on events, not at a fixed interval.
    public var triggerBased: Bool
    public var macBytes: ByteString?
    /// The device's own address from the packet, when it includes one.
    public var mac: String? { macBytes?.mac }
    /// The encryption counter, which must grow from packet to packet.
    public var counter: UInt32?
    public var objects: [BTHomeObject]
    /// Set when the objects could not be read: no or wrong bindkey, a
    /// replayed counter, or a truncated object.
    public var problem: Problem?

    public enum Problem: String, Sendable, Hashable, Encodable {
        case missingBindkey = "missing_bindkey"
        case authenticationFailed = "authentication_failed"
        case replayed
        case truncated
        case unsupportedVersion = "unsupported_version"
    }

    enum CodingKeys: String, CodingKey {
        case version, encrypted, triggerBased = "trigger_based", mac, counter, objects, problem
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(version, forKey: .version)
        try container.encode(encrypted, forKey: .encrypted)
        try container.encode(triggerBased, forKey: .triggerBased)
        try container.encodeIfPresent(mac, forKey: .mac)
        try container.encodeIfPresent(counter, forKey: .counter)
        try container.encode(objects, forKey: .objects)
        try container.encodeIfPresent(problem, forKey: .problem)
    }

    /// The first object named `name`, as a number.
    public func number(_ name: String) -> Double? {
        for object in objects where object.name == name {
            if case .number(let value) = object.value { return value }
        }
        return nil
    }
}
