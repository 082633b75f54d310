/// The scan mode in use, and why it was chosen.
public struct ScanReception: Sendable, Equatable {
    public var mode: ScanMode
    public var reason: String

    public init(mode: ScanMode, reason: String) {
        self.mode = mode
        self.reason = reason
    }
}
