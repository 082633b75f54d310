package import FoundationEssentials
import Basics
import Capture
import Logging
import Recorder
import Recording
import Store
import Telemetry
import Upload
package import Vocabulary

extension RecorderService {
    /// The open trip's id, for the control interface.
    package var currentTrip: String? { core.currentTrip }

    /// Time has passed: the trip detector's deadline is due. The tick is
    /// timed as the alarm was set, however late it woke, as replay times it.
    /// A fired alarm holds no deadline, so the next one is set whatever it is.
    func tick() async {
        let due = alarmDeadline.map { min(now, $0 + RecordingCore.tickDelay) } ?? now
        alarmDeadline = nil
        await handle(.tick(at: due))
    }

    /// Stores an event, sends it as the control interface's `Event` signal,
    /// and (for the reconciler's events) queues it for upload with the samples.
    package func announce(_ event: Event, upload: Bool = true, at time: Date = Date()) async {
        store.note(event, at: time)
        announced(event)
        guard upload else { return }
        capture?.state(.event(event))
        await commit([RecordedSample(time: now, tripID: currentTrip, payload: .event(event))])
    }

    func report(_ event: Reconciler.Event) async {
        let announced = event.announcement(wall: stamper.wall)
        switch event {
        case .requirementsMissing(let missing):
            Log.notice("recording: requirements missing: \(missing.isEmpty ? "none, all restored" : missing.map(\.rawValue).joined(separator: ", "))")
        case .requirementsLostWhileRunning(_, let missing):
            Log.warning("recording: lost while running: \(missing.map(\.rawValue).joined(separator: ", "))")
        case .telemetryGapDetected:
            let detail = announced.detail
            Log.warning("recording: telemetry gap from \(detail[.from] ?? "") to \(detail[.to] ?? "") (\(detail[.seconds] ?? "") s)")
        }
        await announce(announced)
    }

    /// The one way a sample reaches the outbox, whatever its kind: stamped,
    /// committed with its trip's start or end in one transaction, and handed
    /// to the sinks. A full disk becomes the storage requirement (recording
    /// stops with a lost-while-running event; what is stored stays intact).
    /// Any other failure is logged with what it affected, and the samples
    /// are held in memory and committed with the next ones (`UnsavedSamples`).
    func commit(_ recorded: [RecordedSample], urgency: UploadUrgency = .batched) async {
        guard !recorded.isEmpty else { return }
        let stamped = stamper.stamp(recorded)
        let samples = unsaved.samples + stamped
        let trips = unsaved.trips + stamper.tripChanges(recorded, stamped: stamped)
        do {
            try stamper.append(samples, trips: trips, to: outbox, tracks: recordings)
        } catch {
            let kinds = Set(samples.map(\.kind.rawValue)).sorted().joined(separator: ", ")
            let tripIDs = trips.map { "\($0.id) \($0.verb)" }.joined(separator: ", ")
            let affected = "\(samples.count) samples (\(kinds))" + (tripIDs.isEmpty ? "" : " and trip \(tripIDs)")
            if error.isDiskFull {
                Log.error("recording: cannot commit \(affected): \(error)")
                unsaved.clear()
                await handle(.storageFull(at: now))
                return
            }
            unsaved.hold(samples, trips: trips)
            guard unsaved.isWorthLogging else { return }
            Log.error("recording: cannot commit \(affected): \(error); \(unsaved.samples.count) are held to commit with the next samples"
                      + (unsaved.dropped > 0 ? ", \(unsaved.dropped) of the oldest dropped" : "")
                      + (unsaved.failures > 1 ? " (\(unsaved.failures) commits failed in a row)" : ""))
            return
        }
        if samples.count > stamped.count {
            Log.notice("recording: \(samples.count - stamped.count) samples held after a failed commit are stored")
        }
        if unsaved.dropped > 0 {
            let dropped = unsaved.dropped
            unsaved.clear()
            await announce(Event(.dataDropped, [.samples: String(dropped), .reason: "the store refused writes"]))
        }
        unsaved.clear()
        for change in trips {
            Log.notice("recording: trip \(change.id) \(change.verb)")
            // At the trip's own time, as replay records it: the log agrees with the trip's row.
            if let event = change.event { await announce(event, upload: false, at: Date(timeIntervalSince1970: change.at)) }
        }
        await samplesCommitted(samples, urgency)
    }

    /// The alarm at the core's next deadline (`tickDelay` after it, so that
    /// it has passed when the tick reads the clock); cleared when none.
    /// Left alone when the deadline did not move (a fix, most inputs), so
    /// that the alarm's loop wakes only for a new one.
    func scheduleTick() {
        let deadline = core.nextDeadline
        guard deadline != alarmDeadline else { return }
        alarmDeadline = deadline
        alarm.set(deadline.map { ContinuousClock.now.advanced(by: .seconds(min(max(0, $0 + RecordingCore.tickDelay - now), 86_400))) })
    }

    /// After a reload: if space was freed, the next commit will tell.
    package func recheckStorage() async { await handle(.storageMayHaveRoom) }

    /// The system is about to sleep: make the store durable; nothing
    /// session-related happens here.
    package func prepareForSleep() async {
        capture?.state(.sleep)
        await handle(.sleep(at: now))
        BestEffort.write("checkpoint the store") { try store.checkpoint() }
        Log.notice("recording: the system is going to sleep; store committed")
    }

    /// The system woke: collection resumes after a reconcile, which reports
    /// the sleep as a gap if it was longer than the threshold.
    package func resumed(missing: [Requirement]) async {
        Log.notice("recording: the system woke up")
        capture?.state(.wake)
        await handle(.wake(await conditions(missing: missing), at: now))
    }
}
