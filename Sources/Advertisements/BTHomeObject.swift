/// One measurement or event from a BTHome packet.
public struct BTHomeObject: Sendable, Hashable, Codable {
    public enum Value: Sendable, Hashable, Codable {
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

        public init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let v = try? container.decode(Bool.self) { self = .binary(v) } else if let v = try? container.decode(Double.self) {
                self = .number(v)
            } else {
                self = .text(try container.decode(String.self))
            }
        }
    }

    /// The object id from the BTHome specification.
    public var id: UInt8
    /// e.g. `temperature`, `humidity`, `button`.
    public var name: String
    /// e.g. `°C`, `%`, `hPa`; nil for counts, binaries and events.
    public var unit: String?
    public var value: Value
    /// For dimmer events, the number of steps turned.
    public var steps: Int?
}
