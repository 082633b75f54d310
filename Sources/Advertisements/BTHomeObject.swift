/// One measurement or event from a BTHome packet.
public struct BTHomeObject: Sendable, Hashable, Encodable {
    public enum Value: Sendable, Hashable, Encodable {
        case number(Double)
        case binary(Bool)
        /// Button or dimmer events are happenings, not states.
        case event(String)
        case text(String)
        /// Hex of an opaque byte string.
        case raw(String)

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .number(let v): try container.encode(v)
            case .binary(let v): try container.encode(v)
            case .event(let v), .text(let v), .raw(let v): try container.encode(v)
            }
        }
    }

    /// The object id from the BTHome specification.
    public var id: UInt8
    public var value: Value
    /// For dimmer events, the number of steps turned.
    public var steps: Int?

    /// e.g. `temperature`, `humidity`, `button`.
    public var name: String { BTHomeObjectKind.table[Int(id)]?.name ?? "unknown" }
    /// e.g. `°C`, `%`, `hPa`; nil for counts, binaries and events.
    public var unit: String? { BTHomeObjectKind.table[Int(id)]?.unit }

    enum CodingKeys: String, CodingKey { case id, name, unit, value, steps }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(name, forKey: .name)
        try container.encodeIfPresent(unit, forKey: .unit)
        try container.encode(value, forKey: .value)
        try container.encodeIfPresent(steps, forKey: .steps)
    }
}
