public import FoundationEssentials

public struct StoredEvent: Sendable, Equatable {
    public var id: Int64
    public var time: Date
    public var kind: String
    public var detail: String
}
