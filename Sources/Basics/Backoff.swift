/// Capped exponential backoff with full jitter: attempt n waits a uniformly
/// random time in [0, min(cap, base·2ⁿ)], so gateways that lost the same
/// server do not come back in lockstep.
public struct Backoff: Sendable {
    public let base: Duration
    public let cap: Duration
    public private(set) var attempt = 0

    public init(base: Duration, cap: Duration) {
        self.base = base
        self.cap = cap
    }

    /// The ceiling of the next delay, before jitter.
    public var ceiling: Duration {
        let doubled = base * (1 << min(attempt, 30))
        return min(cap, doubled)
    }

    public mutating func next(using generator: inout some RandomNumberGenerator) -> Duration {
        let limit = ceiling
        attempt += 1
        let fraction = Double.random(in: 0...1, using: &generator)
        return limit * fraction
    }

    public mutating func next() -> Duration {
        var generator = SystemRandomNumberGenerator()
        return next(using: &generator)
    }

    public mutating func reset() { attempt = 0 }
}
