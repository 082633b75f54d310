internal import Basics
internal import Telemetry

/// Any JSON value, read with `JSONDecoder` and written back with sorted
/// keys: how a dead letter's samples are taken apart again.
enum JSONValue: Decodable, Equatable {
    case null
    case bool(Bool)
    case integer(Int64)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    init(from decoder: any Decoder) throws {
        if let keyed = try? decoder.container(keyedBy: NamedKey.self) {
            var members: [String: JSONValue] = [:]
            for key in keyed.allKeys { members[key.stringValue] = try keyed.decode(JSONValue.self, forKey: key) }
            self = .object(members)
        } else if var unkeyed = try? decoder.unkeyedContainer() {
            var elements: [JSONValue] = []
            while !unkeyed.isAtEnd { elements.append(try unkeyed.decode(JSONValue.self)) }
            self = .array(elements)
        } else {
            let single = try decoder.singleValueContainer()
            if single.decodeNil() {
                self = .null
            } else if let value = try? single.decode(Bool.self) {
                self = .bool(value)
            } else if let value = try? single.decode(Int64.self) {
                self = .integer(value)
            } else if let value = try? single.decode(Double.self) {
                self = .number(value)
            } else {
                self = .string(try single.decode(String.self))
            }
        }
    }

    var string: String? { if case .string(let text) = self { text } else { nil } }

    /// Compact JSON text, object keys sorted.
    var text: String {
        switch self {
        case .null: "null"
        case .bool(let value): value ? "true" : "false"
        case .integer(let value): String(value)
        case .number(let value): value.isFinite ? "\(value)" : "null"
        case .string(let value): JSONText.quoted(value)
        case .array(let elements): "[" + elements.map(\.text).joined(separator: ",") + "]"
        case .object(let members): "{" + Self.members(members) + "}"
        }
    }

    /// An object's members without braces, keys sorted.
    static func members(_ members: [String: JSONValue]) -> String {
        members.sorted { $0.key < $1.key }.map { JSONText.quoted($0.key) + ":" + $0.value.text }.joined(separator: ",")
    }
}
