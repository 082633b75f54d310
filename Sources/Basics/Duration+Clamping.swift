extension Duration {
    /// A duration of `seconds`, clamped into `range`; nil when `seconds` is
    /// not finite. Numbers from outside (headers, JSON, a store written by
    /// someone else) go through this before they become a `Duration`, whose
    /// own initialisers trap on NaN, infinity or overflow.
    public static func seconds(clamping seconds: Double, to range: ClosedRange<Double>) -> Duration? {
        guard seconds.isFinite else { return nil }
        let clamped = min(max(seconds, range.lowerBound), range.upperBound)
        return .nanoseconds(Int64((clamped * 1e9).rounded()))
    }

    /// Seconds as a `Double`.
    public var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) * 1e-18
    }
}
