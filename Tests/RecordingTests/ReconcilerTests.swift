import Recording
import Testing
import Vocabulary

struct ReconcilerTests {
    @Test func armsWhenAuthorizedWithEveryRequirementPresent() {
        var reconciler = Reconciler(intent: .armed, lastCollected: nil, gapThreshold: 60)
        #expect(reconciler.reconcile(at: 1000, authorized: true, missing: []) == [.startRuntime])
        #expect(reconciler.running)
        #expect(reconciler.reconcile(at: 1001, authorized: true, missing: []).isEmpty, "idempotent")
    }

    @Test func nothingRunsAndNothingIsReportedWhileNotAuthorizedOrDisarmed() {
        var unauthorized = Reconciler(intent: .armed, lastCollected: nil, gapThreshold: 60)
        #expect(unauthorized.reconcile(at: 1000, authorized: false, missing: [.location]).isEmpty)
        var disarmed = Reconciler(intent: .disarmed, lastCollected: nil, gapThreshold: 60)
        #expect(disarmed.reconcile(at: 1000, authorized: true, missing: []).isEmpty)
        #expect(!unauthorized.running && !disarmed.running)
    }

    @Test func missingRequirementsAreReportedOnceAndTheirReturnStartsTheRuntime() {
        var reconciler = Reconciler(intent: .armed, lastCollected: nil, gapThreshold: 60)
        #expect(reconciler.reconcile(at: 1000, authorized: true, missing: [.location]) == [.report(.requirementsMissing([.location]))])
        #expect(reconciler.reconcile(at: 1001, authorized: true, missing: [.location]).isEmpty)
        #expect(reconciler.reconcile(at: 1002, authorized: true, missing: []) == [.startRuntime, .report(.requirementsMissing([]))])
    }

    @Test func aRequirementLostWhileRunningStopsTheRuntimeButKeepsTheIntent() {
        var reconciler = Reconciler(intent: .armed, lastCollected: nil, gapThreshold: 60)
        _ = reconciler.reconcile(at: 1000, authorized: true, missing: [])
        #expect(reconciler.reconcile(at: 1500, authorized: true, missing: [.bluetoothAdapter])
            == [.stopRuntime, .report(.requirementsLostWhileRunning(lostAt: 1500, missing: [.bluetoothAdapter]))])
        #expect(reconciler.intent == .armed && !reconciler.running)
        // The adapter back after 30 s: under the threshold, no gap.
        reconciler.collected(at: 1500)
        #expect(reconciler.reconcile(at: 1530, authorized: true, missing: []) == [.startRuntime, .report(.requirementsMissing([]))])
    }

    /// The heartbeat survives the process: a launch long after the last
    /// sample reports the dead time; a short one resumes silently.
    @Test func aGapLongerThanTheThresholdIsReportedAndAShortOneIsNot() {
        var afterCrash = Reconciler(intent: .armed, lastCollected: 1000, gapThreshold: 60)
        #expect(afterCrash.reconcile(at: 1300, authorized: true, missing: [])
            == [.startRuntime, .report(.telemetryGapDetected(from: 1000, to: 1300))])
        var quickRestart = Reconciler(intent: .armed, lastCollected: 1000, gapThreshold: 60)
        #expect(quickRestart.reconcile(at: 1030, authorized: true, missing: []) == [.startRuntime])
        // Resume from suspend while running: the heartbeat stopped during sleep.
        quickRestart.collected(at: 1100)
        #expect(quickRestart.reconcile(at: 4000, authorized: true, missing: []) == [.report(.telemetryGapDetected(from: 1100, to: 4000))])
        #expect(quickRestart.reconcile(at: 4001, authorized: true, missing: []).isEmpty)
    }

    @Test func disarmingStopsAndReconcilingNeverChangesTheIntent() {
        var reconciler = Reconciler(intent: .armed, lastCollected: nil, gapThreshold: 60)
        _ = reconciler.reconcile(at: 1000, authorized: true, missing: [])
        _ = reconciler.reconcile(at: 1001, authorized: false, missing: [])
        #expect(reconciler.intent == .armed && !reconciler.running)
        reconciler.intent = .disarmed
        #expect(reconciler.reconcile(at: 1002, authorized: true, missing: []).isEmpty)
    }
}
