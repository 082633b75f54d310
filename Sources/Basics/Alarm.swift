/// One deadline that a service's `run()` sleeps towards, instead of a loose
/// timer task: anyone may set, move or clear it, and `run` calls `fire` each
/// time a deadline set is reached. Nothing wakes while no deadline is set.
public final class Alarm<C: Clock>: Sendable where C.Duration == Duration {
    private let deadline = Watched<C.Instant?>(nil)
    private let clock: C

    public init(clock: C) {
        self.clock = clock
    }

    /// The deadline from now on; nil clears it.
    public func set(_ deadline: C.Instant?) { self.deadline.set(deadline) }

    /// Sets the deadline `delay` from now.
    public func set(after delay: Duration) { set(clock.now.advanced(by: delay)) }

    /// Calls `fire` at each deadline until the task is cancelled. Run it from
    /// one task only (a service's `run`).
    public func run(_ fire: @Sendable () async -> Void) async {
        while !Task.isCancelled {
            let (due, generation) = deadline.current
            guard let due else {
                await deadline.changed(since: generation)
                continue
            }
            let reached = await withTaskGroup(of: Bool.self) { group in
                group.addTask { [clock] in (try? await clock.sleep(until: due, tolerance: nil)) != nil }
                group.addTask {
                    await self.deadline.changed(since: generation)
                    return false
                }
                let first = await group.next() ?? false
                group.cancelAll()
                return first
            }
            // Reached and not moved meanwhile: it fires once.
            guard reached, deadline.replace(since: generation, with: nil) else { continue }
            await fire()
        }
    }
}
