import Basics
import PeerHarness
import Testing

struct TimersTests {
    @Test func replacingTheLoopsCancelsTheOldOnesAndRunsTheNew() async throws {
        let clock = TestClock()
        let timers = Timers()
        let ticks = AlarmTests.Fires()
        let runner = Task { await timers.run() }
        defer { runner.cancel() }

        let every = { (period: Duration, mark: Duration) in
            Timers.Loop {
                while (try? await clock.sleep(for: period)) != nil { ticks.add(mark) }
            }
        }
        timers.replace(with: [every(.seconds(1), .seconds(1))])
        try await AlarmTests.settle(clock, sleeping: 1)
        clock.advance(by: .seconds(1))
        try await AlarmTests.waitFor { ticks.all.count == 1 }

        timers.replace(with: [every(.seconds(5), .seconds(5)), every(.seconds(7), .seconds(7))])
        try await AlarmTests.settle(clock, sleeping: 2)
        clock.advance(by: .seconds(5))
        try await AlarmTests.waitFor { ticks.all.count == 2 }
        #expect(ticks.all == [.seconds(1), .seconds(5)])

        timers.replace(with: [])
        try await AlarmTests.settle(clock, sleeping: 0)
        clock.advance(by: .seconds(60))
        #expect(ticks.all == [.seconds(1), .seconds(5)])
    }

    @Test func aLoopThatReturnsIsNotRestartedUntilTheNextReplace() async throws {
        let timers = Timers()
        let runs = AlarmTests.Fires()
        let runner = Task { await timers.run() }
        defer { runner.cancel() }

        timers.replace(with: [Timers.Loop { runs.add(.zero) }])
        try await AlarmTests.waitFor { runs.all.count == 1 }
        try await Task.sleep(for: .milliseconds(50))
        #expect(runs.all.count == 1)
        timers.replace(with: [Timers.Loop { runs.add(.zero) }])
        try await AlarmTests.waitFor { runs.all.count == 2 }
    }

    @Test func cancellingItsTaskEndsTheRunAndItsLoops() async throws {
        let clock = TestClock()
        let timers = Timers()
        timers.replace(with: [Timers.Loop { _ = try? await clock.sleep(for: .seconds(1_000)) }])
        let runner = Task { await timers.run() }
        try await AlarmTests.settle(clock, sleeping: 1)
        runner.cancel()
        await runner.value
        #expect(clock.sleepers == 0)
    }
}
