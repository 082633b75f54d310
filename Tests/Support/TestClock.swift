import Synchronization

/// A clock that moves only when a test says so, so thresholds, timeouts and
/// backoff are tested without sleeping.
public final class TestClock: Clock, @unchecked Sendable {
    public struct Instant: InstantProtocol, Sendable {
        public var offset: Duration
        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private struct Sleeper {
        var deadline: Instant
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now = Instant(offset: .zero)
        var sleepers: [Int: Sleeper] = [:]
        var nextID = 0
    }

    private let state = Mutex(State())

    public init() {}

    public var now: Instant { state.withLock { $0.now } }
    public var minimumResolution: Duration { .nanoseconds(1) }

    /// How many tasks are sleeping on this clock.
    public var sleepers: Int { state.withLock { $0.sleepers.count } }

    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                // Cancelled before it slept, the handler found no sleeper to
                // wake; checked under the lock the handler takes too.
                let (resumeNow, cancelled) = state.withLock { state -> (Bool, Bool) in
                    if Task.isCancelled { return (true, true) }
                    if deadline <= state.now { return (true, false) }
                    state.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    return (false, false)
                }
                if cancelled {
                    continuation.resume(throwing: CancellationError())
                } else if resumeNow {
                    continuation.resume()
                }
            }
        } onCancel: {
            state.withLock { $0.sleepers.removeValue(forKey: id) }?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves time forward and wakes every sleeper whose deadline has come.
    public func advance(by duration: Duration) {
        let due = state.withLock { state -> [Sleeper] in
            state.now = state.now.advanced(by: duration)
            let due = state.sleepers.filter { $0.value.deadline <= state.now }
            for key in due.keys { state.sleepers[key] = nil }
            return Array(due.values)
        }
        for sleeper in due { sleeper.continuation.resume() }
    }

    /// Waits (in real time, briefly) until `count` tasks sleep on the clock.
    public func waitForSleepers(_ count: Int, timeout: Duration = .seconds(30)) async throws {
        let deadline = ContinuousClock.now + timeout
        while sleepers < count {
            guard ContinuousClock.now < deadline else { throw PeerError.timedOut("\(count) sleepers on the test clock") }
            try await Task.sleep(for: .milliseconds(2))
        }
    }
}
