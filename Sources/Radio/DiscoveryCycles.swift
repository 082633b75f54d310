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

    /// "12 discovery cycles, scanning off 35 ms on average and 80 ms at most".
    public var summary: String {
        func ms(_ duration: Duration) -> Int { Int(duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000) }
        return "\(count) discovery cycles, scanning off \(ms(offMean)) ms on average and \(ms(offLongest)) ms at most"
            + (failures > 0 ? ", \(failures) refused" : "")
    }

    package mutating func record(off: Duration) {
        count += 1
        offTotal += off
        offLongest = max(offLongest, off)
    }
}
