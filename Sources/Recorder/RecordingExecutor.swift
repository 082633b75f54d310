import Basics
import FoundationEssentials
import Logging
package import Recording
package import Store
package import Telemetry
import Upload
package import Vocabulary

/// The one executor of the recording core's decisions, for the daemon and
/// replay alike: it feeds `RecordingCore` (the wall offset included, so the
/// core has no hidden input) and carries out, in order, everything the core
/// decides that touches the store: stamping, committing samples with their
/// trips' rows, the event log, the heartbeat, the write-error policy. What
/// only a host can do (scan, signal, hand samples to sinks, log what
/// happened) comes back as effects, in the order they happened, for the
/// host to carry out: the daemon does them all, replay keeps the counts.
package struct RecordingExecutor {
    package enum Effect: Sendable {
        case startScanning
        case stopScanning
        /// A reconciler's event (requirements missing, lost, a gap), as the core reported it.
        case reported(Reconciler.Event)
        /// An event now in the log; `uploaded` when it is also queued as a sample.
        case announced(Event, uploaded: Bool)
        /// A trip started, resumed or ended among committed samples.
        case tripChanged(SampleStamper.TripChange)
        /// Samples now in the outbox, for the sinks.
        case committed([Sample], UploadUrgency)
    }

    package var core: RecordingCore
    package var stamper: SampleStamper
    /// What the last commits could not store, for the next one to try again.
    package private(set) var unsaved = UnsavedSamples()
    package let store: GatewayStore

    package init(core: RecordingCore, stamper: SampleStamper, store: GatewayStore) {
        self.core = core
        self.stamper = stamper
        self.store = store
    }

    /// Now on the boot clock: the timeline of trips, presence and gaps.
    package var now: Double { stamper.clock.boot() }

    /// Feeds the core and carries out what it decides.
    package mutating func handle(_ input: RecordingCore.Input) -> [Effect] {
        core.wallOffset = stamper.wall(0)
        var effects: [Effect] = []
        for action in core.handle(input) {
            switch action {
            case .startScanning: effects.append(.startScanning)
            case .stopScanning: effects.append(.stopScanning)
            case .receiverTime(let time, let boot): stamper.gnss(time: time, atBoot: boot)
            case .commit(let samples, let flush): effects += commit(samples, urgency: flush ? .flush : .batched)
            case .report(let event):
                effects.append(.reported(event))
                effects += announce(event.announcement(wall: stamper.wall))
            case .heartbeat(let boot): storeHeartbeat(boot)
            }
        }
        return effects
    }

    /// Stores `event` in the log at the stamped time (the trips' time base)
    /// and, with `upload`, queues it as a sample.
    package mutating func announce(_ event: Event, upload: Bool = true) -> [Effect] {
        let at = now
        let stamped = stamper.stamp(at)
        store.note(event, at: Date(timeIntervalSince1970: stamped.time), unsynced: stamped.source == .unsynced ? (stamped.reading.bootID, at) : nil)
        var effects: [Effect] = [.announced(event, uploaded: upload)]
        if upload { effects += commit([RecordedSample(time: at, tripID: core.currentTrip, payload: .event(event))]) }
        return effects
    }

    /// The one way a sample reaches the outbox, whatever its kind: stamped,
    /// committed with its trip's start or end in one transaction, and handed
    /// on. A full disk becomes the storage requirement (recording stops with a
    /// lost-while-running event; what is stored stays intact). Any other
    /// failure is logged with what it affected, and the samples are held in
    /// memory and committed with the next ones (`UnsavedSamples`).
    package mutating func commit(_ recorded: [RecordedSample], urgency: UploadUrgency = .batched) -> [Effect] {
        guard !recorded.isEmpty else { return [] }
        let stamped = stamper.stamp(recorded)
        let samples = unsaved.samples + stamped
        let trips = unsaved.trips + stamper.tripChanges(recorded, stamped: stamped)
        do {
            try stamper.append(samples, trips: trips)
        } catch {
            let kinds = Set(samples.map(\.kind.rawValue)).sorted().joined(separator: ", ")
            let tripIDs = trips.map { "\($0.id) \($0.verb)" }.joined(separator: ", ")
            let affected = "\(samples.count) samples (\(kinds))" + (tripIDs.isEmpty ? "" : " and trip \(tripIDs)")
            if error.isDiskFull {
                Log.error("recording: cannot commit \(affected): \(error)")
                unsaved.clear()
                return handle(.storageFull(at: now))
            }
            unsaved.hold(samples, trips: trips)
            guard unsaved.isWorthLogging else { return [] }
            Log.error("recording: cannot commit \(affected): \(error); \(unsaved.samples.count) are held to commit with the next samples"
                      + (unsaved.dropped > 0 ? ", \(unsaved.dropped) of the oldest dropped" : "")
                      + (unsaved.failures > 1 ? " (\(unsaved.failures) commits failed in a row)" : ""))
            return []
        }
        if samples.count > stamped.count {
            Log.notice("recording: \(samples.count - stamped.count) samples held after a failed commit are stored")
        }
        let dropped = unsaved.dropped
        unsaved.clear()
        var effects: [Effect] = []
        if dropped > 0 { effects += announce(Event(.dataDropped, [.samples: String(dropped), .reason: "the store refused writes"])) }
        for change in trips {
            effects.append(.tripChanged(change))
            // At the trip's own time: the log agrees with the trip's row.
            if let event = change.event {
                store.note(event, at: Date(timeIntervalSince1970: change.at), unsynced: change.unsynced)
                effects.append(.announced(event, uploaded: false))
            }
        }
        effects.append(.committed(samples, urgency))
        return effects
    }

    /// The last moment the recorder was known to collect, for the next start's gap.
    package func storeHeartbeat(_ boot: Double) {
        let stamped = stamper.stamp(boot)
        BestEffort.write("store the heartbeat") {
            try stamper.recordings.setHeartbeat(Heartbeat(wall: stamped.time, source: stamped.source, boot: boot, bootID: stamped.reading.bootID))
        }
    }
}
