import Basics
import PeerHarness
import Synchronization
import Testing

struct AlarmTests {
    /// Fires recorded, with the test clock's time of each.
    final class Fires: Sendable {
        let times = Mutex<[Duration]>([])
        func add(_ time: Duration) { times.withLock { $0.append(time) } }
        var all: [Duration] { times.withLock { $0 } }
    }

    @Test func itFiresOnceAtEachDeadlineAndNotAtOneMovedOrCleared() async throws {
        let clock = TestClock()
        let alarm = Alarm(clock: clock)
        let fires = Fires()
        let runner = Task { await alarm.run { fires.add(clock.now.offset) } }
        defer { runner.cancel() }

        alarm.set(after: .seconds(10))
        try await clock.waitForSleepers(1)
        alarm.set(after: .seconds(20))          // moved before it was reached
        try await Self.settle(clock, sleeping: 1)
        clock.advance(by: .seconds(10))
        clock.advance(by: .seconds(10))
        try await Self.waitFor { fires.all.count == 1 }
        #expect(fires.all == [.seconds(20)])

        alarm.set(after: .seconds(5))
        try await clock.waitForSleepers(1)
        alarm.set(nil)                          // cleared: nothing sleeps, nothing fires
        try await Self.settle(clock, sleeping: 0)
        clock.advance(by: .seconds(60))
        #expect(fires.all == [.seconds(20)])
    }

    @Test func cancellingItsTaskEndsTheRunWithADeadlineSetOrNot() async throws {
        let clock = TestClock()
        let alarm = Alarm(clock: clock)
        let idle = Task { await alarm.run {} }
        idle.cancel()
        await idle.value
        let waiting = Task { await alarm.run {} }
        alarm.set(after: .seconds(1_000))
        try await clock.waitForSleepers(1)
        waiting.cancel()
        await waiting.value
        #expect(clock.sleepers == 0)
    }

    /// Waits (briefly, in real time) until exactly `sleeping` tasks sleep on the clock.
    static func settle(_ clock: TestClock, sleeping: Int) async throws {
        try await waitFor { clock.sleepers == sleeping }
    }

    static func waitFor(_ condition: @escaping @Sendable () -> Bool) async throws {
        try await withDeadline(.seconds(10), "the alarm") {
            while !condition() { try await Task.sleep(for: .milliseconds(1)) }
        }
    }
}
