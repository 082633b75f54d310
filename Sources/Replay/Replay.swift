import Basics
package import Capture
package import Config
import FoundationEssentials
import Location
package import Pairings
import Radio
import Recorder
import Recording
package import Store
import Telemetry
import Upload
import Vocabulary

/// Drives the daemon's recording core (`RecordingCore`) from a capture on a
/// virtual clock, with the same decoders and identity matching
/// (`PairedDevices`), stamper and outbox; it has no rule of its own.
/// The core's deadlines (a beacon lost) fire at their time on the
/// capture's timeline, and epochs close where the capture says the
/// reader closed them, so the same capture always gives the same trips
/// and samples. The core reconciles on the captured conditions
/// and reports its own events; the others (radio recovery, scan modes, the
/// session's) are recorded again as they were. Nothing is uploaded.
package struct Replay {
    package enum Pace: Sendable, Equatable {
        /// As fast as the pipeline goes.
        case fast
        /// `n` times real time.
        case speed(Double)
    }

    let store: GatewayStore
    let recordings: RecordingStore
    let outbox: Outbox
    let configuration: Configuration
    let paired: PairedDevices
    let pairings: [Pairing]

    /// Pairings come from the store when it has any (with their keys);
    /// otherwise from the capture's header, which has no keys.
    package init(store: GatewayStore, configuration: Configuration, pairings: [Pairing]) {
        (self.store, self.configuration, self.pairings) = (store, configuration, pairings)
        recordings = RecordingStore(database: store.database)
        outbox = Outbox(database: store.database)
        paired = PairedDevices(pairings)
    }

    /// Replays every record `reader` can read, then lets the deadlines due
    /// by the last record's time fire.
    package func run(_ reader: CaptureReader, pace: Pace = .fast) async throws -> ReplayOutcome {
        let clock = ReplayClock(bootID: reader.header.bootID)
        let recording = configuration.recording
        let core = RecordingCore(intent: .armed, lastCollected: nil, gapThreshold: recording.gapThreshold.seconds,
                                 trips: recording.tripOptions, samples: recording.sampleOptions)
        var state = ReplayState(executor: RecordingExecutor(core: core, stamper: SampleStamper(clock: clock, outbox: outbox, recordings: recordings), store: store),
                                location: ReplayedLocation(settle: reader.header.format >= 2 ? nil : configuration.location.readerOptions.epochSettle.seconds))
        var first: CaptureRecord?
        var last: CaptureRecord?
        while let record = reader.next() {
            if case .speed(let speed) = pace, let last, record.boot > last.boot {
                try await Task.sleep(for: .seconds(min(60, (record.boot - last.boot) / max(speed, 0.001))))
            }
            due(until: record, &state, clock)
            clock.set(boot: record.boot, wall: record.wall, synchronized: record.synchronized)
            replay(record, &state)
            first = first ?? record
            last = record
        }
        if let last { due(until: last, &state, clock) }
        return ReplayOutcome(records: reader.records, stop: reader.stop ?? .complete, from: first?.wall, to: last?.wall,
                             samples: state.counts, trips: try recordings.trips().filter { state.tripIDs.contains($0.id) })
    }

    /// Fires the deadlines that fall before `record`: the core's (a
    /// millisecond after it, as the daemon's timer wakes), and the location
    /// reader's epoch settling.
    private func due(until record: CaptureRecord, _ state: inout ReplayState, _ clock: ReplayClock) {
        var fired = -Double.infinity
        while true {
            let tick = state.core.nextDeadline.map { $0 + RecordingCore.tickDelay }
            let settle = state.location.settleDeadline
            guard let deadline = [tick, settle].compactMap({ $0 }).filter({ $0 <= record.boot && $0 > fired }).min() else { return }
            fired = deadline
            clock.set(boot: deadline, wall: record.wall - (record.boot - deadline), synchronized: record.synchronized)
            if settle == deadline, let fix = state.location.finish() {
                handle(.observed(.fix(fix, at: deadline)), &state)
            }
            if tick == deadline { handle(.tick(at: deadline), &state) }
        }
    }

    private func replay(_ record: CaptureRecord, _ state: inout ReplayState) {
        let at = record.boot
        switch record.body {
        case .advert(let adapter, let sighting):
            // Counted and matched as the daemon did: every advert it was given.
            // Each advert names the adapter the daemon's meter counted it under
            // (empty: none yet, and it was not counted); a capture from before
            // adapters were captured has only this.
            let name = adapter.isEmpty ? nil : AdapterName(rawValue: adapter)
            if state.meter.adapter != name { state.meter.follow(adapter: name) }
            let matched = paired.match(sighting, at: { at })
            state.meter.advert(sighting, from: matched?.0.identity)
            guard let (_, observation) = matched else { return }
            handle(.observed(observation), &state)
        case .location(let line):
            for fix in state.location.add(line, at: at) { handle(.observed(.fix(fix, at: at)), &state) }
        case .state(let captured):
            switch captured {
            case .requirements(let missing, let intent, let authorized):
                handle(.reconcile(RecordingConditions(missing: missing, capturedIntent: intent, authorized: authorized), at: at), &state)
            // A capture without conditions (`waymark record`, an older
            // daemon's): the runtime ran between these.
            case .running(let on) where on != state.core.running:
                var conditions = state.core.lastConditions
                conditions.intent = on ? .armed : .disarmed
                conditions.authorized = true
                handle(.reconcile(conditions, at: at), &state)
            case .sleep: handle(.sleep(at: at), &state)
            case .wake: handle(.wake(state.core.lastConditions, at: at), &state)
            case .scanMode(let mode): state.meter.follow(mode: mode)
            case .adapter(let name): state.meter.follow(adapter: name.map(AdapterName.init(rawValue:)))
            case .discoveryRestarted: state.meter.restarted()
            case .recoveryStep(let step): state.meter.stepped(step)
            case .strangersShed: state.meter.shed()
            // The core's own are made again above; one from a newer Waymark is passed over.
            case .event(let event):
                guard !event.kind.isReconcilers else { return }
                announce(event, &state)
            case .epochClosed(let afterLastLine):
                if let (fix, at) = state.location.close(afterLastLine: afterLastLine) { handle(.observed(.fix(fix, at: at)), &state) }
            case .health(let seconds):
                let report = state.meter.report(seconds: seconds, pairings: pairings)
                commit([RecordedSample(time: at, tripID: state.core.currentTrip, payload: .radioHealth(report))], &state)
            case .running, .end, .unknown:
                break
            }
        }
    }

    /// Feeds the core through the executor the daemon uses; of the effects,
    /// replay keeps the counts: scanning is the capture's, and nothing is
    /// uploaded or signalled.
    private func handle(_ input: RecordingCore.Input, _ state: inout ReplayState) {
        state.keep(state.executor.handle(input))
    }

    private func announce(_ event: Event, _ state: inout ReplayState) {
        state.keep(state.executor.announce(event))
    }

    private func commit(_ recorded: [RecordedSample], _ state: inout ReplayState) {
        state.keep(state.executor.commit(recorded))
    }
}
