import Basics
import Location
import PeerHarness
import Testing

struct BackoffTests {
    @Test func delaysDoubleUpToTheCapWithJitterBelowTheCeiling() {
        var backoff = Backoff(base: .milliseconds(500), cap: .seconds(30))
        var rng = SplitMix64(seed: 3)
        var ceilings: [Duration] = []
        for _ in 0..<10 {
            let ceiling = backoff.ceiling
            ceilings.append(ceiling)
            let delay = backoff.next(using: &rng)
            #expect(delay >= .zero && delay <= ceiling)
        }
        #expect(ceilings.prefix(7) == [.milliseconds(500), .seconds(1), .seconds(2), .seconds(4), .seconds(8), .seconds(16), .seconds(30)])
        #expect(ceilings.last == .seconds(30))
        backoff.reset()
        #expect(backoff.ceiling == .milliseconds(500))
    }

    @Test func jitterSpreadsRetriesAcrossTheWholeWindow() {
        var rng = SplitMix64(seed: 9)
        var backoff = Backoff(base: .seconds(8), cap: .seconds(8))
        let delays = (0..<1000).map { _ in backoff.next(using: &rng) }
        #expect(delays.contains { $0 < .seconds(1) })
        #expect(delays.contains { $0 > .seconds(7) })
    }
}
