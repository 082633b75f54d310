import Basics
import Capture
import DBus
import Gateway
import Logging
import Recording
import Storage
import Telemetry
import Upload

extension RecorderService {
    /// The open trip's id, for the control interface.
    var currentTrip: String? { trips.detector.isActive ? trips.tripID : nil }

    func observe(_ observation: Observation) async {
        guard !sleeping else { return }
        if case .fix(let fix, _) = observation { lastFix = fix }
        reconciler.collected(at: now)
        if now - heartbeatStored >= 5 || now < heartbeatStored {
            heartbeatStored = now
            storeHeartbeat(now)
        }
        trips.wallOffset = stamper.wall(0)
        await commit(trips.observe(observation))
    }

    /// Time has passed: the trip detector's deadlines are due.
    func tick() async {
        trips.wallOffset = stamper.wall(0)
        await commit(trips.tick(at: now))
    }

    /// Stores an event, sends it as the control interface's `Event` signal,
    /// and (for the reconciler's events) queues it for upload with the samples.
    func announce(_ kind: String, _ detail: [String: String], upload: Bool = true) {
        try? store.record(kind, detail: detail)
        try? bus?.emit(path: ControlInterface.path, interface: ControlInterface.interface, name: "Event",
                       arguments: [.string(kind), .string(SampleEncoder.object(detail))])
        guard upload else { return }
        capture?.state(CaptureState.event, detail.merging(["event": kind]) { $1 })
        append(RecordedSample(time: now, tripID: currentTrip, payload: .event(kind, detail)))
    }

    /// Queues one sample outside the trip recorder's flow (an event, a health
    /// report).
    func append(_ recorded: RecordedSample, urgency: UploadUrgency = .batched) {
        let sample = stamper.sample(recorded)
        guard (try? outbox.append([sample])) != nil else { return }
        let committed = samplesCommitted
        Task { await committed([sample], urgency) }
    }

    func report(_ event: Reconciler.Event) {
        switch event {
        case .requirementsMissing(let missing):
            Log.notice("recording: requirements missing: \(missing.isEmpty ? "none, all restored" : missing.joined(separator: ", "))")
            announce("requirementsMissing", ["missing": missing.joined(separator: " ")])
        case .requirementsLostWhileRunning(let lostAt, let missing):
            Log.warning("recording: lost while running: \(missing.joined(separator: ", "))")
            announce("requirementsLostWhileRunning", ["lost_at": CivilTime.iso8601(stamper.wall(lostAt)), "missing": missing.joined(separator: " ")])
        case .telemetryGapDetected(let from, let to):
            let (start, end) = (CivilTime.iso8601(stamper.wall(from)), CivilTime.iso8601(stamper.wall(to)))
            Log.warning("recording: telemetry gap from \(start) to \(end) (\(Int((to - from).rounded())) s)")
            announce("telemetryGapDetected", ["from": start, "to": end, "seconds": String(Int((to - from).rounded()))])
        }
    }

    private func commit(_ recorded: [RecordedSample]) async {
        defer { scheduleTick() }
        guard !recorded.isEmpty else { return }
        var ended = false
        let samples = stamper.stamp(recorded)
        for change in stamper.recordTrips(recorded, stamped: samples, in: recordings) {
            switch change.action {
            case .started: Log.notice("recording: trip \(change.id) started")
            case .resumed: Log.notice("recording: trip \(change.id) resumed")
            case .ended:
                Log.notice("recording: trip \(change.id) ended")
                ended = true
            }
            if let event = change.event { announce(event.kind, event.detail, upload: false) }
        }
        do {
            try stamper.append(samples, to: outbox, tracks: recordings)
        } catch {
            Log.error("recording: cannot commit \(recorded.count) samples: \(error)")
            // Disk full: stop with a requirement-lost event; what is stored stays intact.
            if let error = error as? StorageError, error.isFull, !storageFull {
                storageFull = true
                await reconcile(missing: lastMissing)
            }
            return
        }
        await samplesCommitted(samples, ended ? .flush : .batched)
    }

    private func scheduleTick() {
        timer?.cancel()
        guard let deadline = trips.nextDeadline else { return }
        let delay = max(0, deadline - now)
        timer = Task {
            try? await Task.sleep(for: .milliseconds(Int64(delay * 1000) + 1))
            guard !Task.isCancelled else { return }
            await self.tick()
        }
    }

    /// After a reload: if space was freed, the next commit will tell.
    func recheckStorage() { storageFull = false }

    /// The system is about to sleep: make the store durable; nothing
    /// session-related happens here.
    func prepareForSleep() {
        sleeping = true
        capture?.state(CaptureState.sleep)
        storeHeartbeat(reconciler.lastCollected ?? now)
        try? store.database.checkpoint()
        Log.notice("recording: the system is going to sleep; store committed")
    }

    /// The system woke: collection resumes after a reconcile, which reports
    /// the sleep as a gap if it was longer than the threshold.
    func resumed(missing: [Requirement]) async {
        Log.notice("recording: the system woke up")
        capture?.state(CaptureState.wake)
        await reconcile(missing: missing)
        sleeping = false
    }
}
