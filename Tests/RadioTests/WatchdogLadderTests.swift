@testable import Radio
import Testing

/// The watchdog's ladder as a pure decision: silent periods in, steps out.
struct WatchdogLadderTests {
    /// What `count` silent periods decide, each rfkill step answered with `unblocked`.
    static func silences(_ count: Int, _ ladder: inout WatchdogLadder, underMonitor: Bool = false, unblocked: Int = 1) -> [WatchdogLadder.Action] {
        (0..<count).map { _ in
            let action = ladder.silence(underMonitor: underMonitor)
            return action == .unblockRadio ? ladder.unblocked(unblocked) : action
        }
    }

    @Test func eachSilentPeriodClimbsOneStepThenProbesAtADoublingPeriod() {
        var ladder = WatchdogLadder(backoffCap: 4, kernelPowerCycle: true)
        let steps = Self.silences(5, &ladder)
        #expect(steps == [.restartDiscovery, .powerCycle, .powerCycleUnblocked, .kernelPowerCycle, .reportNeedsPowerCycle])
        #expect(ladder.radioNeedsPowerCycle && ladder.backoff == 1)
        let probes = Self.silences(3, &ladder)
        #expect(probes == [.probe, .probe, .probe])
        #expect(ladder.backoff == 4, "doubled up to the cap")
    }

    @Test func theRfkillStepIsAskedForAndPassedOverWhenNothingWasBlocked() {
        var ladder = WatchdogLadder(backoffCap: 16, kernelPowerCycle: true)
        _ = Self.silences(2, &ladder)
        let third = ladder.silence(underMonitor: false)
        #expect(third == .unblockRadio)
        let afterNothing = ladder.unblocked(0)
        #expect(afterNothing == .kernelPowerCycle)
    }

    @Test func withoutTheKernelsPowerCycleTheLadderEndsSooner() {
        var ladder = WatchdogLadder(backoffCap: 16, kernelPowerCycle: false)
        let steps = Self.silences(3, &ladder, unblocked: 0)
        #expect(steps == [.restartDiscovery, .powerCycle, .reportNeedsPowerCycle])
    }

    @Test func anAdvertResetsTheLadderAndSaysWhenTheRadioRecovered() {
        var ladder = WatchdogLadder(backoffCap: 16, kernelPowerCycle: false)
        _ = Self.silences(1, &ladder)
        let early = ladder.advertHeard()
        #expect(!early, "not reported as needing a power cycle: nothing to announce")
        #expect(Self.silences(1, &ladder) == [.restartDiscovery], "back at the first step")
        #expect(Self.silences(3, &ladder, unblocked: 0) == [.powerCycle, .reportNeedsPowerCycle, .probe])
        #expect(ladder.backoff == 2)
        let recovered = ladder.advertHeard()
        #expect(recovered)
        #expect(ladder.backoff == 1 && !ladder.radioNeedsPowerCycle && ladder.strikes == 0)
    }

    @Test func underAMonitorSilenceOnlyStartsScanningAgainAndLeavesTheAdapterAlone() {
        var ladder = WatchdogLadder(backoffCap: 16, kernelPowerCycle: true)
        #expect(Self.silences(10, &ladder, underMonitor: true) == Array(repeating: .restartScan, count: 10))
        #expect(ladder.strikes == 0)
        #expect(Self.silences(1, &ladder) == [.restartDiscovery], "under discovery again: the ladder from its foot")
    }

    @Test(arguments: [
        (WatchdogLadder.Action.restartScan, ScannerEvent.WatchdogStep?.some(.restartDiscovery)), (.restartDiscovery, .restartDiscovery),
        (.powerCycle, .powerCycle), (.powerCycleUnblocked, .rfkillUnblock), (.kernelPowerCycle, .mgmtPowerCycle),
        (.reportNeedsPowerCycle, .needsPowerCycle), (.probe, nil), (.unblockRadio, nil),
    ])
    func eachStepIsReportedAsTheEventItWasBefore(action: WatchdogLadder.Action, step: ScannerEvent.WatchdogStep?) {
        #expect(action.step == step)
    }
}
