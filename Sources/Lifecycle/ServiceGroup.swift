internal import Basics

/// Runs a daemon's services as child tasks of one task group: starts them
/// one at a time in order, handles a failed one by its `FailurePolicy`, and
/// when `trigger` yields (SIGTERM) or a service fails for good, ends them in
/// reverse order, each after the one started after it has stopped. A
/// service asked to stop (its `run` cancelled) that has not ended after
/// `stopTimeout` is reported and left behind, so that one stuck service
/// cannot hold the daemon past systemd's `TimeoutStopSec`.
public struct ServiceGroup<C: Clock>: Sendable where C.Duration == Duration {
    public struct Entry: Sendable {
        public var service: any Service
        public var policy: FailurePolicy

        public init(_ service: any Service, onFailure policy: FailurePolicy = .shutdownGroup) {
            self.service = service
            self.policy = policy
        }
    }

    public let entries: [Entry]
    let clock: C
    let stopTimeout: Duration
    let report: @Sendable (ServiceEvent) -> Void

    /// `clock` times restart backoff and `stopTimeout`; `report` hears of
    /// every start, failure and stop.
    public init(_ entries: [Entry], clock: C, stopTimeout: Duration = .seconds(8), report: @escaping @Sendable (ServiceEvent) -> Void = { _ in }) {
        self.entries = entries
        self.clock = clock
        self.stopTimeout = stopTimeout
        self.report = report
    }

    private enum Outcome: Sendable {
        /// The service ended, by itself or when asked.
        case ended
        /// It failed with `.shutdownGroup`.
        case fatal(String)
        /// The shutdown trigger yielded, or finished.
        case trigger(String?)
        /// Asked to stop, it had not after `stopTimeout`.
        case heldUp
    }

    /// Returns once every service has ended; throws if one failed with `.shutdownGroup`.
    public func run<Reason: Sendable>(until trigger: AsyncStream<Reason>) async throws(ServiceGroupError) {
        let failure: ServiceGroupError? = await withTaskGroup(of: (Int, Outcome).self) { group in
            var stops: [AsyncStream<Void>.Continuation] = []
            var running = Set<Int>()
            var failure: ServiceGroupError?
            for (index, entry) in entries.enumerated() {
                let (stop, stopper) = AsyncStream.makeStream(of: Void.self)
                let (up, upper) = AsyncStream.makeStream(of: Bool.self)
                stops.append(stopper)
                running.insert(index)
                group.addTask { (index, await supervise(entry, until: stop, up: upper)) }
                var started = false
                for await ok in up { started = ok }
                if !started, entry.policy == .shutdownGroup { break }
            }
            group.addTask {
                for await reason in trigger { return (-1, .trigger("\(reason)")) }
                return (-1, .trigger(nil))
            }
            // Until the trigger, or a fatal failure.
            waiting: while let (index, outcome) = await group.next() {
                switch outcome {
                case .ended: running.remove(index)
                case .fatal(let description):
                    running.remove(index)
                    failure = .serviceFailed(name: entries[index].service.name, description: description)
                    break waiting
                case .trigger(let reason):
                    if let reason {
                        report(.shuttingDown(reason))
                        break waiting
                    }
                case .heldUp:
                    running.remove(index)
                }
                if running.isEmpty { break }
            }
            // Reverse order: each service stops before the one it may rely on.
            for index in entries.indices.reversed() where running.contains(index) {
                stops[index].finish()
                while running.contains(index), let (ended, outcome) = await group.next() {
                    if case .fatal(let description) = outcome, failure == nil {
                        failure = .serviceFailed(name: entries[ended].service.name, description: description)
                    }
                    if case .heldUp = outcome { report(.heldUp(entries[ended].service.name, after: stopTimeout)) }
                    running.remove(ended)
                }
            }
            group.cancelAll()
            return failure
        }
        if let failure { throw failure }
    }

    /// One service's life: its start and run, raced against `stop`. When
    /// `stop` ends first, the run is cancelled and given `stopTimeout`.
    private func supervise(_ entry: Entry, until stop: AsyncStream<Void>, up: AsyncStream<Bool>.Continuation) async -> Outcome {
        // The one task outside the group's tree: a child task that ignores
        // its cancellation would hold the group until it returned; this one
        // can be left behind, and the process ends without it.
        let (outcomes, outcome) = AsyncStream.makeStream(of: Outcome.self)
        let life = Task {
            outcome.yield(await lifecycle(entry, up: up))
            outcome.finish()
        }
        return await withTaskGroup(of: Outcome?.self) { group in
            group.addTask {
                for await ended in outcomes { return ended }
                return nil
            }
            group.addTask {
                for await _ in stop {}
                return nil
            }
            if let ended = await group.next() ?? nil {
                group.cancelAll()
                return ended
            }
            life.cancel()
            let (clock, timeout) = (clock, stopTimeout)
            group.addTask {
                do { try await clock.sleep(for: timeout) } catch { return nil }
                return .heldUp
            }
            while let next = await group.next() {
                guard let next else { continue }
                group.cancelAll()
                return next
            }
            return .ended
        }
    }

    private func lifecycle(_ entry: Entry, up: AsyncStream<Bool>.Continuation) async -> Outcome {
        let name = entry.service.name
        var backoff: Backoff?
        defer {
            up.finish()
            report(.stopped(name))
        }
        while !Task.isCancelled {
            do {
                try await entry.service.start()
                up.yield(true)
                up.finish()
                report(.started(name))
                try await entry.service.run()
                return .ended
            } catch {
                // A service that throws while being cancelled is shutting down, not failing.
                if Task.isCancelled { return .ended }
                report(.failed(name, description: "\(error)"))
                switch entry.policy {
                case .shutdownGroup:
                    up.yield(false)
                    return .fatal("\(error)")
                case .report:
                    up.yield(false)
                    return .ended
                case .restart(let base, let cap):
                    // Startup goes on without it; it comes back on its own.
                    up.finish()
                    if backoff == nil { backoff = Backoff(base: base, cap: cap) }
                    let delay = backoff?.next() ?? base
                    report(.restarting(name, after: delay))
                    do { try await clock.sleep(for: delay) } catch { return .ended }
                }
            }
        }
        return .ended
    }
}
