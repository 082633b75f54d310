package import Vocabulary

/// An announced event as a capture's `event` record keeps it: its details
/// by name, with its kind under `event`.
extension Event {
    package var captured: [String: String] {
        Dictionary(uniqueKeysWithValues: members.map { ($0.name, $0.value) } + [("event", kind.rawValue)])
    }

    package init?(captured detail: [String: String]) {
        self.init(kind: detail["event"] ?? "", detail: detail.lazy.map { (key: $0.key, value: $0.value) })
    }
}
