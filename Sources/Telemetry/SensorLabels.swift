public import Vocabulary
/// Each paired sensor's label by its id in the samples (`pairing-3`), for
/// the names people read: the trip report's legend, Home Assistant's entities.
public struct SensorLabels: Sendable, Equatable {
    private var labels: [SensorID: String] = [:]

    /// The first label given for an id stands.
    public init(_ entries: some Sequence<(id: SensorID, label: String)>) {
        for (id, label) in entries where labels[id] == nil { labels[id] = label }
    }

    public subscript(id: SensorID) -> String? { labels[id] }

    public var ids: Dictionary<SensorID, String>.Keys { labels.keys }
}
