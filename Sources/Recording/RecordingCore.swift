public import Telemetry
public import Vocabulary

/// Every recording rule in one pure state machine, driven alike by the
/// daemon (live) and by replay (a capture on a virtual clock). What happened
/// goes in; what to do comes out. The caller carries out the actions: it
/// scans, stamps and commits samples, announces events, and calls `tick` at
/// `nextDeadline`. Times are seconds on the boot clock.
///
/// - The reconciler decides whether the runtime runs: the user's intent,
///   the session and the requirements, with a full store counted as one.
/// - Observations count only while running and awake; a fix only from 2D up.
/// - The trip recorder turns them into trips and samples.
public struct RecordingCore: Sendable, Equatable {
    public enum Input: Sendable, Equatable {
        /// Launch, a reload, `start`/`stop`, a login or logout, a requirement
        /// that changed: match the runtime to `RecordingConditions`.
        case reconcile(RecordingConditions, at: Double)
        /// A paired device's sighting or a fix.
        case observed(Observation)
        /// Time has passed without an observation.
        case tick(at: Double)
        /// Something other than an observation came at this time (a radio
        /// health report): the deadlines before it are due first, each at
        /// its own time, as before an observation.
        case reached(Double)
        /// A commit failed because the disk is full.
        case storageFull(at: Double)
        /// After a reload: space may have been freed; the next commit will tell.
        case storageMayHaveRoom
        /// logind's PrepareForSleep(true): nothing is collected until `wake`.
        case sleep(at: Double)
        /// The system woke: a reconcile that measures the sleep from the heartbeat.
        case wake(RecordingConditions, at: Double)
    }

    public enum Action: Sendable, Equatable {
        case startScanning
        case stopScanning
        /// The receiver's time, which dates samples while the system clock is unsynced.
        case receiverTime(Double, atBoot: Double)
        /// Commit these samples in order; `flush` when a trip ended, so they go out at once.
        case commit([RecordedSample], flush: Bool)
        /// Announce and record this event, as a sample too.
        case report(Reconciler.Event)
        /// Persist the heartbeat, so that a restart can tell how long it was dead.
        case heartbeat(Double)
    }

    /// How often, at most, the heartbeat is persisted while collecting.
    public static let heartbeatInterval = 5.0
    /// How long after a deadline its tick comes: the detector decides some
    /// only once the deadline has passed (a reopen window runs out after it).
    public static let tickDelay = 0.001

    public private(set) var reconciler: Reconciler
    public private(set) var trips: TripRecorder
    public private(set) var sleeping = false
    /// A commit failed for lack of space: storage counts as missing until a reload.
    public private(set) var storageFull = false
    /// The newest fix taken while running.
    public private(set) var lastFix: Fix?
    private var conditions: RecordingConditions
    private var heartbeatStored: Double?

    public init(intent: RecordingIntent, lastCollected: Double?, gapThreshold: Double, trips: TripDetector.Options, samples: SamplePolicy.Options) {
        reconciler = Reconciler(intent: intent, lastCollected: lastCollected, gapThreshold: gapThreshold)
        self.trips = TripRecorder(trips: trips, samples: samples)
        conditions = RecordingConditions(intent: intent, authorized: false, missing: [])
    }

    /// Continues a trip a previous process left open (see `TripDetector.restore`).
    public mutating func restore(tripID: TripID, start: Double, lastSeen: Double) {
        trips.restore(tripID: tripID, start: start, lastSeen: lastSeen)
    }

    public var running: Bool { reconciler.running }
    public var intent: RecordingIntent { reconciler.intent }
    /// The open trip's id; nil between trips.
    public var currentTrip: TripID? { trips.detector.isActive ? trips.tripID : nil }
    /// When `tick` has something to decide next.
    public var nextDeadline: Double? { trips.nextDeadline }
    /// The conditions of the last reconcile.
    public var lastConditions: RecordingConditions { conditions }

    public var gapThreshold: Double {
        get { reconciler.gapThreshold }
        set { reconciler.gapThreshold = newValue }
    }

    /// Wall clock minus the boot clock, for trip ids only; the caller sets it before each input.
    public var wallOffset: Double {
        get { trips.wallOffset }
        set { trips.wallOffset = newValue }
    }

    public mutating func handle(_ input: Input) -> [Action] {
        switch input {
        case .reconcile(let conditions, let now):
            return reconcile(conditions, at: now)
        case .observed(let observation):
            return tick(before: observation.time) + observe(observation)
        case .tick(let now):
            return commit(trips.tick(at: now))
        case .reached(let time):
            return tick(before: time)
        case .storageFull(let now):
            guard !storageFull else { return [] }
            storageFull = true
            return reconcile(conditions, at: now)
        case .storageMayHaveRoom:
            storageFull = false
            return []
        case .sleep(let now):
            sleeping = true
            return [.heartbeat(reconciler.lastCollected ?? now)]
        case .wake(let conditions, let now):
            // Reconciled while still asleep, so the sleep counts from the heartbeat.
            let actions = reconcile(conditions, at: now)
            sleeping = false
            return actions
        }
    }

    private mutating func reconcile(_ conditions: RecordingConditions, at now: Double) -> [Action] {
        self.conditions = conditions
        reconciler.intent = conditions.intent
        // Running and awake, the gateway could collect all along, even with
        // nothing in sight: no gap. Resume, restarts and requirements that
        // come back are measured from the heartbeat.
        if reconciler.running && !sleeping { reconciler.collected(at: now) }
        let missing = storageFull ? conditions.missing + [.storage] : conditions.missing
        return reconciler.reconcile(at: now, authorized: conditions.authorized, missing: missing).flatMap { action -> [Action] in
            switch action {
            case .startRuntime: return [.startScanning]
            case .stopRuntime: return [.stopScanning, .heartbeat(reconciler.lastCollected ?? now)]
            case .report(let event): return [.report(event)]
            }
        }
    }

    private mutating func observe(_ observation: Observation) -> [Action] {
        guard reconciler.running, !sleeping else { return [] }
        var actions: [Action] = []
        if case .fix(let fix, let at) = observation {
            guard fix.mode >= 2 else { return [] }
            lastFix = fix
            if let time = fix.time { actions.append(.receiverTime(time, atBoot: at)) }
        }
        let now = observation.time
        reconciler.collected(at: now)
        // Due after the interval, or when the time went back.
        if heartbeatStored.map({ now - $0 >= Self.heartbeatInterval || now < $0 }) ?? true {
            heartbeatStored = now
            actions.append(.heartbeat(now))
        }
        return actions + commit(trips.observe(observation))
    }

    /// The ticks due before an observation at `time`, each at its deadline
    /// and `tickDelay`, as the daemon's alarm is set: what the observation
    /// does then depends on its own time only, not on how late the alarm
    /// woke (or whether it has yet), and replay decides the same.
    private mutating func tick(before time: Double) -> [Action] {
        var actions: [Action] = []
        while let deadline = nextDeadline, deadline + Self.tickDelay <= time {
            actions += commit(trips.tick(at: deadline + Self.tickDelay))
            guard nextDeadline != deadline else { break }
        }
        return actions
    }

    private func commit(_ samples: [RecordedSample]) -> [Action] {
        guard !samples.isEmpty else { return [] }
        let ended = samples.contains { if case .ended = $0.tripAction { true } else { false } }
        return [.commit(samples, flush: ended)]
    }
}
