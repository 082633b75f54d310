/// Each paired sensor's label by its id in the samples (`pairing-3`), for
/// the names people read: the trip report's legend, Home Assistant's entities.
public struct SensorLabels: Sendable, Equatable {
    private var labels: [String: String] = [:]

    /// The first label given for an id stands.
    public init(_ entries: some Sequence<(id: String, label: String)>) {
        for (id, label) in entries where labels[id] == nil { labels[id] = label }
    }

    public subscript(id: String) -> String? { labels[id] }

    public var ids: Dictionary<String, String>.Keys { labels.keys }
}
