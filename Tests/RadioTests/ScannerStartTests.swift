import Radio
import Testing

/// The scanner's start, retries and stop, decided alone.
struct ScannerStartTests {
    @Test func aFailedStartIsReportedAndTriedAgainOnALadderToTheCeiling() {
        var start = ScannerStart(ceiling: .seconds(5))
        #expect(start.handle(.scan) == [.start])
        #expect(start.handle(.failed(reason: "refused")) == [
            .discardFailed, .scheduleRetry(after: .seconds(1)), .reportFailure(reason: "refused", failures: 1, retryIn: .seconds(1)),
        ])
        var waits: [Duration] = []
        for _ in 0..<4 {
            #expect(start.handle(.retryDue) == [.start])
            for case .scheduleRetry(let wait) in start.handle(.failed(reason: "refused")) { waits.append(wait) }
        }
        #expect(waits == [.seconds(2), .seconds(4), .seconds(5), .seconds(5)])
        #expect(start.handle(.retryDue) == [.start])
        #expect(start.handle(.started) == [.reportRecovered(failures: 5)])
        #expect(start.state == .running)
    }

    @Test func aStartThatWorksAtOnceReportsNothing() {
        var start = ScannerStart(ceiling: .seconds(60))
        _ = start.handle(.scan)
        #expect(start.handle(.started) == [])
        #expect(start.handle(.scan) == [], "one scanner")
        #expect(start.handle(.stop) == [.stop])
        #expect(start.state == .idle)
    }

    @Test func aStopWhileARetryWaitsCancelsItAndALateRetryStartsNothing() {
        var start = ScannerStart(ceiling: .seconds(60))
        _ = start.handle(.scan)
        _ = start.handle(.failed(reason: "refused"))
        #expect(start.handle(.scan) == [], "a scan while the retry waits keeps its schedule")
        #expect(start.handle(.stop) == [.cancelRetry])
        #expect(start.handle(.retryDue) == [], "stopped: the retry that fires anyway starts nothing")
        #expect(start.state == .idle)
    }

    @Test func anOutcomeThatComesBackAfterAStopIsUndone() {
        var start = ScannerStart(ceiling: .seconds(60))
        _ = start.handle(.scan)
        #expect(start.handle(.stop) == [])
        #expect(start.handle(.started) == [.stop], "a scanner that started after the stop is stopped")
        _ = start.handle(.scan)
        _ = start.handle(.stop)
        #expect(start.handle(.failed(reason: "refused")) == [.discardFailed], "and one that failed is released, with no retry")
    }
}
