public import Vocabulary

/// Keeps what runs (scanning, reading location) in line with what the user
/// asked for, and says why when it cannot. Pure: the caller persists the
/// intent and the heartbeat, performs the actions, and calls `reconcile`
/// at launch and whenever the system becomes active again (resume, reload,
/// a requirement or a login coming back).
///
/// Reconciling never changes the intent: only `start`/`stop` (and login,
/// logout) do, through `intent`.
public struct Reconciler: Sendable, Equatable {
    public enum Event: Sendable, Equatable {
        /// Armed but not running for lack of these; empty once all are back.
        case requirementsMissing([Requirement])
        /// Was running, and these went away at `lostAt`.
        case requirementsLostWhileRunning(lostAt: Double, missing: [Requirement])
        /// Nothing was collected between these times (the process dead, the
        /// system asleep, a requirement gone), longer than the threshold.
        case telemetryGapDetected(from: Double, to: Double)
    }

    public enum Action: Sendable, Equatable {
        case startRuntime
        case stopRuntime
        case report(Event)
    }

    public var intent: RecordingIntent
    public var gapThreshold: Double
    public private(set) var running = false
    /// The heartbeat: when telemetry was last collected (seconds, wall clock).
    public private(set) var lastCollected: Double?
    /// The missing list last reported, so each change is reported once.
    private var reportedMissing: [Requirement]?

    public init(intent: RecordingIntent, lastCollected: Double?, gapThreshold: Double) {
        self.intent = intent
        self.lastCollected = lastCollected
        self.gapThreshold = gapThreshold
    }

    /// Telemetry arrived: the heartbeat moves on.
    public mutating func collected(at time: Double) {
        lastCollected = max(time, lastCollected ?? time)
    }

    public mutating func reconcile(at now: Double, authorized: Bool, missing: [Requirement]) -> [Action] {
        let missing = missing.sorted()
        let expected = intent == .armed && authorized
        let shouldRun = expected && missing.isEmpty
        var actions: [Action] = []
        switch (running, shouldRun) {
        case (true, false):
            running = false
            actions.append(.stopRuntime)
            if expected {
                actions.append(.report(.requirementsLostWhileRunning(lostAt: now, missing: missing)))
                reportedMissing = missing
            }
        case (false, true):
            running = true
            actions.append(.startRuntime)
            if let reported = reportedMissing, !reported.isEmpty { actions.append(.report(.requirementsMissing([]))) }
            reportedMissing = []
            actions += gap(now)
        case (true, true):
            actions += gap(now)
        case (false, false):
            if expected, missing != reportedMissing {
                actions.append(.report(.requirementsMissing(missing)))
                reportedMissing = missing
            }
        }
        return actions
    }

    /// A gap since the heartbeat, if longer than the threshold; the heartbeat
    /// then restarts from now.
    private mutating func gap(_ now: Double) -> [Action] {
        defer { lastCollected = now }
        guard let last = lastCollected, now - last > gapThreshold else { return [] }
        return [.report(.telemetryGapDetected(from: last, to: now))]
    }
}
