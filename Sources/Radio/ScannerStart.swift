/// Whether a scanner runs while the recorder wants one, without the bus:
/// requests and the outcomes of starting come in, what to do comes out. A
/// start that fails is tried again on a ladder, 1 s doubling to `ceiling`,
/// each failure reported with its reason, so the gateway is never deaf in
/// silence. A stop is a state: a retry that falls due after it starts
/// nothing.
public struct ScannerStart: Equatable, Sendable {
    public enum State: Equatable, Sendable {
        case idle
        /// The `attempt`th start is under way.
        case starting(attempt: Int)
        case running
        /// `failures` starts failed in a row; the next is scheduled.
        case waiting(failures: Int)
    }

    public enum Input: Equatable, Sendable {
        case scan, stop
        case started
        case failed(reason: String)
        /// The wait after a failure is over.
        case retryDue
    }

    public enum Action: Equatable, Sendable {
        /// Make a scanner and start it; feed back `started` or `failed`.
        case start
        /// The scanner whose start failed: release what it made.
        case discardFailed
        /// Feed back `retryDue` after this long.
        case scheduleRetry(after: Duration)
        case cancelRetry
        /// Stop the running scanner.
        case stop
        /// Say that scanning did not start, why, and when it is tried again.
        case reportFailure(reason: String, failures: Int, retryIn: Duration)
        /// Say that scanning runs after `failures` failed starts.
        case reportRecovered(failures: Int)
    }

    public private(set) var state: State = .idle
    /// The longest wait between two starts.
    public let ceiling: Duration

    public init(ceiling: Duration) { self.ceiling = max(ceiling, .seconds(1)) }

    /// The wait after `failures` failed starts in a row.
    public func delay(after failures: Int) -> Duration {
        var wait = Duration.seconds(1)
        for _ in 1..<max(1, failures) where wait < ceiling { wait *= 2 }
        return min(wait, ceiling)
    }

    public mutating func handle(_ input: Input) -> [Action] {
        switch (state, input) {
        case (.idle, .scan):
            state = .starting(attempt: 1)
            return [.start]
        case (.starting(let attempt), .started):
            state = .running
            return attempt > 1 ? [.reportRecovered(failures: attempt - 1)] : []
        case (.starting(let attempt), .failed(let reason)):
            state = .waiting(failures: attempt)
            let wait = delay(after: attempt)
            return [.discardFailed, .scheduleRetry(after: wait), .reportFailure(reason: reason, failures: attempt, retryIn: wait)]
        case (.waiting(let failures), .retryDue):
            state = .starting(attempt: failures + 1)
            return [.start]
        case (.running, .stop):
            state = .idle
            return [.stop]
        case (.waiting, .stop):
            state = .idle
            return [.cancelRetry]
        case (.starting, .stop):
            // The start's outcome comes back to an idle machine, below.
            state = .idle
            return []
        case (.idle, .started):
            return [.stop]
        case (.idle, .failed):
            return [.discardFailed]
        case (.running, .scan), (.starting, .scan), (.waiting, .scan), (.idle, .stop), (_, .retryDue), (.running, .started), (.running, .failed),
             (.waiting, .started), (.waiting, .failed):
            return []
        }
    }
}
