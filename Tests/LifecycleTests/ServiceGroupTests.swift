import Basics
import Lifecycle
import PeerHarness
import Synchronization
import Testing

/// The group's order, policies and shutdown, with services that only log.
struct ServiceGroupTests {
    final class Journal: Sendable {
        private let lines = Mutex<[String]>([])
        func add(_ line: String) { lines.withLock { $0.append(line) } }
        var all: [String] { lines.withLock { $0 } }
    }

    struct Probe: Service {
        enum Failure: Error { case refused }
        let name: String
        let journal: Journal
        /// How many runs fail before one holds.
        var failingRuns = 0
        var failStart = false
        let attempts = Journal()

        init(_ name: String, _ journal: Journal, failingRuns: Int = 0, failStart: Bool = false) {
            (self.name, self.journal, self.failingRuns, self.failStart) = (name, journal, failingRuns, failStart)
        }

        func start() async throws {
            journal.add("start \(name)")
            if failStart { throw Failure.refused }
        }

        func run() async throws {
            attempts.add("run")
            if attempts.all.count <= failingRuns { throw Failure.refused }
            // Until cancelled.
            await waitUntilCancelled()
            journal.add("stop \(name)")
        }
    }

    @Test func servicesStartInOrderAndStopInReverseOnTheTrigger() async throws {
        let journal = Journal()
        let group = ServiceGroup(["a", "b", "c"].map { .init(Probe($0, journal)) }, clock: TestClock())
        let (trigger, pull) = AsyncStream.makeStream(of: String.self)
        async let ended: Void = group.run(until: trigger)
        try await withDeadline(.seconds(10), "three starts") { while journal.all.count < 3 { await Task.yield() } }
        pull.yield("SIGTERM")
        try await ended
        #expect(journal.all == ["start a", "start b", "start c", "stop c", "stop b", "stop a"])
    }

    @Test func aFatalFailureStopsTheOthersInReverseAndEndsTheGroupWithIt() async throws {
        let journal = Journal()
        let group = ServiceGroup([.init(Probe("a", journal)), .init(Probe("b", journal)), .init(Probe("c", journal, failingRuns: 1))],
                                 clock: TestClock())
        let (trigger, _) = AsyncStream.makeStream(of: String.self)
        await #expect(throws: ServiceGroupError.self) { try await group.run(until: trigger) }
        #expect(journal.all == ["start a", "start b", "start c", "stop b", "stop a"])
    }

    @Test func aServiceThatCannotStartKeepsTheLaterOnesFromStarting() async throws {
        let journal = Journal()
        let group = ServiceGroup([.init(Probe("a", journal)), .init(Probe("b", journal, failStart: true)), .init(Probe("c", journal))],
                                 clock: TestClock())
        let (trigger, _) = AsyncStream.makeStream(of: String.self)
        await #expect(throws: ServiceGroupError.self) { try await group.run(until: trigger) }
        #expect(journal.all == ["start a", "start b", "stop a"])
    }

    @Test func aRestartedServiceComesBackAfterItsBackoffOnTheInjectedClock() async throws {
        let journal = Journal()
        let clock = TestClock()
        let events = Journal()
        let group = ServiceGroup([.init(Probe("a", journal)), .init(Probe("flaky", journal, failingRuns: 2), onFailure: .restart(base: .seconds(1), cap: .seconds(4))),
                                  .init(Probe("c", journal))], clock: clock) { events.add("\($0)") }
        let (trigger, pull) = AsyncStream.makeStream(of: String.self)
        async let ended: Void = group.run(until: trigger)
        // The first failure: later services start anyway, the flaky one waits out its backoff.
        try await clock.waitForSleepers(1)
        try await withDeadline(.seconds(10), "c started") { while journal.all.count < 3 { await Task.yield() } }
        #expect(journal.all == ["start a", "start flaky", "start c"])
        clock.advance(by: .seconds(1))
        try await clock.waitForSleepers(1)
        clock.advance(by: .seconds(2))
        try await withDeadline(.seconds(10), "the third start") { while journal.all.filter({ $0 == "start flaky" }).count < 3 { await Task.yield() } }
        #expect(events.all.filter { $0.hasPrefix("failed") }.count == 2)
        pull.yield("SIGTERM")
        try await ended
        #expect(journal.all.suffix(3) == ["stop c", "stop flaky", "stop a"])
    }

    @Test func aReportedFailureLeavesTheOthersRunning() async throws {
        let journal = Journal()
        let group = ServiceGroup([.init(Probe("a", journal)), .init(Probe("optional", journal, failingRuns: 1), onFailure: .report), .init(Probe("c", journal))],
                                 clock: TestClock())
        let (trigger, pull) = AsyncStream.makeStream(of: String.self)
        async let ended: Void = group.run(until: trigger)
        try await withDeadline(.seconds(10), "three starts") { while journal.all.count < 3 { await Task.yield() } }
        pull.yield("SIGTERM")
        try await ended
        #expect(journal.all == ["start a", "start optional", "start c", "stop c", "stop a"])
    }
}

/// Shutdown with a service that ignores being asked to stop.
struct ServiceGroupShutdownTests {
    /// A run that only a test can end: it ignores cancellation.
    final class Gate: Sendable {
        private let waiter = Mutex<CheckedContinuation<Void, Never>?>(nil)
        private let opened = Mutex(false)

        func wait() async {
            await withCheckedContinuation { continuation in
                let open = opened.withLock { $0 }
                if open { continuation.resume() } else { waiter.withLock { $0 = continuation } }
            }
        }

        func open() {
            opened.withLock { $0 = true }
            waiter.withLock { $0.take() }?.resume()
        }
    }

    struct Stubborn: Service {
        let name = "stubborn"
        let gate: Gate
        func run() async throws { await gate.wait() }
    }

    @Test func aServiceThatDoesNotStopInTimeIsNamedAndTheOneBeforeItStillStops() async throws {
        let journal = ServiceGroupTests.Journal(), events = ServiceGroupTests.Journal()
        let clock = TestClock(), gate = Gate()
        defer { gate.open() }
        let group = ServiceGroup([.init(ServiceGroupTests.Probe("a", journal)), .init(Stubborn(gate: gate))],
                                 clock: clock, stopTimeout: .seconds(8)) { events.add("\($0)") }
        let (trigger, pull) = AsyncStream.makeStream(of: String.self)
        async let ended: Void = group.run(until: trigger)
        try await withDeadline(.seconds(10), "the starts") { while !events.all.contains(#"started("stubborn")"#) { await Task.yield() } }
        pull.yield("SIGTERM")
        // The stubborn one stops first, and is given its 8 s on the clock; a waits.
        try await clock.waitForSleepers(1)
        clock.advance(by: .seconds(7))
        #expect(journal.all == ["start a"], "a waits for the stubborn one until its timeout")
        clock.advance(by: .seconds(1))
        try await ended
        #expect(journal.all == ["start a", "stop a"])
        #expect(events.all.contains(#"heldUp("stubborn", after: 8.0 seconds)"#), "\(events.all)")
        #expect(!events.all.contains(#"stopped("stubborn")"#))
    }

    @Test func servicesThatStopWhenAskedLeaveNoTimerBehind() async throws {
        let journal = ServiceGroupTests.Journal(), events = ServiceGroupTests.Journal()
        let clock = TestClock()
        let group = ServiceGroup(["a", "b"].map { .init(ServiceGroupTests.Probe($0, journal)) }, clock: clock) { events.add("\($0)") }
        let (trigger, pull) = AsyncStream.makeStream(of: String.self)
        async let ended: Void = group.run(until: trigger)
        try await withDeadline(.seconds(10), "the starts") { while journal.all.count < 2 { await Task.yield() } }
        pull.yield("SIGTERM")
        try await ended
        #expect(clock.sleepers == 0 && !events.all.contains { $0.hasPrefix("heldUp") }, "\(events.all)")
    }
}
