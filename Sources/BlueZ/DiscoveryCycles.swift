/// What cycling discovery has cost: how often it ran and how long scanning
/// was off each time (from StopDiscovery sent to StartDiscovery answered,
/// an upper bound).
public struct DiscoveryCycles: Sendable, Equatable {
    public var count = 0
    public var failures = 0
    public var offTotal: Duration = .zero
    public var offLongest: Duration = .zero

    public init() {}

    public var offMean: Duration { count == 0 ? .zero : offTotal / count }

    mutating func record(off: Duration) {
        count += 1
        offTotal += off
        offLongest = max(offLongest, off)
    }
}
