import Synchronization

/// One deadline that a service's `run()` sleeps towards, instead of a loose
/// timer task: anyone may set, move or clear it, and `run` calls `fire` each
/// time a deadline set is reached. Nothing wakes while no deadline is set.
public final class Alarm<C: Clock>: Sendable where C.Duration == Duration {
    private struct State {
        var deadline: C.Instant?
        /// Counts the changes, so that a sleep knows its deadline moved.
        var generation = 0
        /// The `run` loop, waiting for a change.
        var waiter: CheckedContinuation<Void, Never>?

        mutating func takeWaiter() -> CheckedContinuation<Void, Never>? {
            defer { waiter = nil }
            return waiter
        }
    }

    private let state = Mutex(State())
    private let clock: C

    public init(clock: C) {
        self.clock = clock
    }

    /// The deadline from now on; nil clears it.
    public func set(_ deadline: C.Instant?) {
        state.withLock { state in
            state.deadline = deadline
            state.generation += 1
            return state.takeWaiter()
        }?.resume()
    }

    /// Sets the deadline `delay` from now.
    public func set(after delay: Duration) { set(clock.now.advanced(by: delay)) }

    /// Calls `fire` at each deadline until the task is cancelled. Run it from
    /// one task only (a service's `run`).
    public func run(_ fire: @Sendable () async -> Void) async {
        while !Task.isCancelled {
            let (deadline, generation) = state.withLock { ($0.deadline, $0.generation) }
            guard let deadline else {
                await changed(since: generation)
                continue
            }
            let reached = await withTaskGroup(of: Bool.self) { group in
                group.addTask { [clock] in (try? await clock.sleep(until: deadline, tolerance: nil)) != nil }
                group.addTask {
                    await self.changed(since: generation)
                    return false
                }
                let first = await group.next() ?? false
                group.cancelAll()
                return first
            }
            // Reached and not moved meanwhile: it fires once.
            guard reached, state.withLock({ state in
                guard state.generation == generation else { return false }
                state.deadline = nil
                return true
            }) else { continue }
            await fire()
        }
    }

    /// Returns once the deadline changed after `generation`, or the task is cancelled.
    private func changed(since generation: Int) async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                // Checked under the lock the cancellation handler takes too.
                let now = state.withLock { state -> Bool in
                    if Task.isCancelled || state.generation != generation { return true }
                    state.waiter = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.takeWaiter() }?.resume()
        }
    }
}
