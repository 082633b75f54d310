public import FoundationEssentials
public import Vocabulary

public struct StoredEvent: Sendable, Equatable {
    public var id: Int64
    public var time: Date
    public var kind: String
    /// Its details as the log keeps them: a JSON object of strings.
    public var detail: String

    /// The event as it was recorded; nil for a kind this Waymark does not know.
    public var event: Event? {
        let fields = try? JSONDecoder().decode(Fields.self, from: Data(detail.utf8))
        return Event(kind: kind, detail: fields?.values ?? [])
    }

    /// A JSON object's string members, whatever their names.
    private struct Fields: Decodable {
        struct Name: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }

        var values: [(key: String, value: String)] = []

        init(from decoder: any Decoder) throws {
            let object = try decoder.container(keyedBy: Name.self)
            for name in object.allKeys {
                if let value = try? object.decode(String.self, forKey: name) { values.append((name.stringValue, value)) }
            }
        }
    }
}
