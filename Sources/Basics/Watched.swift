import Synchronization

/// A value that tasks wait on for changes, without a task of their own: the
/// part `Alarm` and `Timers` share. Each change bumps a generation, so a
/// waiter knows what it missed.
public final class Watched<Value: Sendable>: Sendable {
    private struct State {
        var value: Value
        var generation = 0
        /// The tasks waiting for a change, by ticket.
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
        var nextTicket = 0
    }

    private let state: Mutex<State>

    public init(_ value: Value) {
        state = Mutex(State(value: value))
    }

    /// The value now, with its generation.
    public var current: (value: Value, generation: Int) {
        state.withLock { ($0.value, $0.generation) }
    }

    public func set(_ value: Value) {
        let waiters = state.withLock { state in
            state.value = value
            state.generation += 1
            defer { state.waiters = [:] }
            return state.waiters.values
        }
        waiters.forEach { $0.resume() }
    }

    /// Replaces the value with `new` only if nothing changed since `generation`.
    func replace(since generation: Int, with new: Value) -> Bool {
        state.withLock { state in
            guard state.generation == generation else { return false }
            state.value = new
            return true
        }
    }

    /// Returns once the value changed after `generation`, or the task is cancelled.
    public func changed(since generation: Int) async {
        let ticket = state.withLock { state in
            defer { state.nextTicket += 1 }
            return state.nextTicket
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                // Checked under the lock the cancellation handler takes too.
                let now = state.withLock { state -> Bool in
                    if Task.isCancelled || state.generation != generation { return true }
                    state.waiters[ticket] = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: ticket) }?.resume()
        }
    }
}
