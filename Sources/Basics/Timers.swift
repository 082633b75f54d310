/// The loops a service runs only in some state (a scan's watchdog, say),
/// hosted by its `run()` instead of loose tasks: `replace` swaps the whole
/// set, cancelling the loops before, and `run` runs whatever is current.
public final class Timers: Sendable {
    /// One loop, with the executor it prefers, if any.
    public struct Loop: Sendable {
        let executor: (any TaskExecutor)?
        let body: @Sendable () async -> Void

        public init(on executor: (any TaskExecutor)? = nil, _ body: @escaping @Sendable () async -> Void) {
            self.executor = executor
            self.body = body
        }
    }

    private let loops = Watched<[Loop]>([])

    public init() {}

    /// Cancels the loops running and runs `new` instead; `[]` stops them all.
    public func replace(with new: [Loop]) { loops.set(new) }

    /// Runs the current loops, and each set that replaces them, until the
    /// task is cancelled. A loop that returns is not restarted until the
    /// next `replace`. Run it from one task only.
    public func run() async {
        while !Task.isCancelled {
            let (current, generation) = loops.current
            await withTaskGroup(of: Bool.self) { group in
                for loop in current {
                    group.addTask(executorPreference: loop.executor) {
                        await loop.body()
                        return false
                    }
                }
                group.addTask {
                    await self.loops.changed(since: generation)
                    return true
                }
                while let replaced = await group.next(), !replaced {}
                group.cancelAll()
            }
        }
    }
}
