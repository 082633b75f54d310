import Basics
import Capture
import Logging
import Recorder
import Recording
import Store
import Telemetry
package import Vocabulary

extension RecorderService {
    /// The open trip's id, for the control interface.
    package var currentTrip: TripID? { core.currentTrip }

    /// Time has passed: the trip detector's deadline is due. The tick is
    /// timed as the alarm was set, however late it woke, as replay times it.
    /// A fired alarm holds no deadline, so the next one is set whatever it is.
    func tick() async {
        let due = alarmDeadline.map { min(now, $0 + RecordingCore.tickDelay) } ?? now
        alarmDeadline = nil
        await handle(.tick(at: due))
    }

    /// Stores an event, sends it as the control interface's `Event` signal,
    /// and (unless `upload` is false) queues it for upload with the samples.
    package func announce(_ event: Event, upload: Bool = true) async {
        await perform(executor.announce(event, upload: upload))
    }

    /// The journal's line for a reconciler's event.
    func log(_ event: Reconciler.Event) {
        switch event {
        case .requirementsMissing(let missing):
            Log.notice("recording: requirements missing: \(missing.isEmpty ? "none, all restored" : missing.map(\.rawValue).joined(separator: ", "))")
        case .requirementsLostWhileRunning(_, let missing):
            Log.warning("recording: lost while running: \(missing.map(\.rawValue).joined(separator: ", "))")
        case .telemetryGapDetected:
            let detail = event.announcement(wall: stamper.wall).detail
            Log.warning("recording: telemetry gap from \(detail[.from] ?? "") to \(detail[.to] ?? "") (\(detail[.seconds] ?? "") s)")
        }
    }

    /// Samples to the outbox through the executor's one commit path.
    func commit(_ recorded: [RecordedSample], urgency: UploadUrgency = .batched) async {
        await perform(executor.commit(recorded, urgency: urgency))
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
