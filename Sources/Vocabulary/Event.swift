/// One announcement: its kind and its details, as text.
public struct Event: Sendable, Equatable {
    public var kind: EventKind
    public var detail: [EventField: String]

    public init(_ kind: EventKind, _ detail: [EventField: String] = [:]) {
        self.kind = kind
        self.detail = detail
    }

    /// Read back from stored or captured text: nil for a kind this Waymark
    /// does not know; details it does not know are left out.
    public init?(kind: String, detail: some Sequence<(key: String, value: String)>) {
        guard let kind = EventKind(rawValue: kind) else { return nil }
        self.kind = kind
        self.detail = [:]
        for (key, value) in detail {
            if let field = EventField(rawValue: key) { self.detail[field] = value }
        }
    }

    /// The details by their names, sorted: the order on the wire.
    public var members: [(name: String, value: String)] {
        detail.map { ($0.key.rawValue, $0.value) }.sorted { $0.name < $1.name }
    }
}
