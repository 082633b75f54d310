package import Capture
import Basics
import BlueZ
import Location
import FoundationEssentials
package import Gateway
import Logging
import Recording
import Storage
import Telemetry
import Upload

/// Drives the recording pipeline from a capture on a virtual clock: the
/// decoders and identity matching (`PairedDevices`), the trip detector and
/// sample policy (`TripRecorder`), the stamper and the outbox, as the daemon
/// runs them. Deadlines (a beacon lost, an epoch settled) fire at their
/// time on the capture's timeline, so the same capture always gives the
/// same trips and samples. The captured events (requirements, radio
/// recovery, scan modes) are recorded again as they were; nothing is uploaded.
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
        var state = ReplayState(stamper: SampleStamper(clock: clock, outbox: outbox, recordings: recordings),
                                trips: TripRecorder(trips: configuration.recording.tripOptions, samples: configuration.recording.sampleOptions),
                                location: ReplayedLocation(settle: configuration.location.readerOptions.epochSettle.seconds))
        var first: CaptureRecord?
        var last: CaptureRecord?
        while let record = reader.next() {
            if case .speed(let speed) = pace, let last, record.boot > last.boot {
                try await Task.sleep(for: .seconds(min(60, (record.boot - last.boot) / max(speed, 0.001))))
            }
            try due(until: record, &state, clock)
            clock.set(boot: record.boot, wall: record.wall, synchronized: record.synchronized)
            try replay(record, &state)
            first = first ?? record
            last = record
        }
        if let last { try due(until: last, &state, clock) }
        return ReplayOutcome(records: reader.records, stop: reader.stop ?? .complete, from: first?.wall, to: last?.wall,
                             samples: state.counts, trips: try recordings.trips().filter { state.tripIDs.contains($0.id) })
    }

    /// Fires the deadlines that fall before `record`: the trip detector's
    /// (a millisecond after it, as the daemon's timer wakes), and the
    /// location reader's epoch settling.
    private func due(until record: CaptureRecord, _ state: inout ReplayState, _ clock: ReplayClock) throws {
        var fired = -Double.infinity
        while true {
            let tick = state.trips.nextDeadline.map { $0 + 0.001 }
            let settle = state.location.settleDeadline
            guard let deadline = [tick, settle].compactMap({ $0 }).filter({ $0 <= record.boot && $0 > fired }).min() else { return }
            fired = deadline
            clock.set(boot: deadline, wall: record.wall - (record.boot - deadline), synchronized: record.synchronized)
            if settle == deadline, let fix = state.location.finish() {
                try observe(fix, at: deadline, &state)
            }
            if tick == deadline {
                state.trips.wallOffset = state.stamper.wall(0)
                try commit(state.trips.tick(at: deadline), &state)
            }
        }
    }

    private func replay(_ record: CaptureRecord, _ state: inout ReplayState) throws {
        switch record.body {
        case .advert(let adapter, let sighting):
            guard state.running, !state.sleeping else { return }
            if state.meter.adapter != adapter { state.meter.follow(adapter: adapter) }
            state.meter.advert()
            guard let (pairing, observation) = paired.match(sighting, at: { record.boot }) else { return }
            state.meter.seen(pairing.identity, rssi: sighting.rssi)
            state.trips.wallOffset = state.stamper.wall(0)
            try commit(state.trips.observe(observation), &state)
        case .location(let line):
            for fix in state.location.add(line, at: record.boot) { try observe(fix, at: record.boot, &state) }
        case .state(let kind, var detail):
            switch kind {
            case CaptureState.running: state.running = detail["on"] == "true"
            case CaptureState.sleep: state.sleeping = true
            case CaptureState.wake: state.sleeping = false
            case CaptureState.scanMode: if let mode = detail["mode"] { state.meter.follow(mode: mode) }
            case CaptureState.event:
                let event = detail.removeValue(forKey: "event") ?? "event"
                try? store.record(event, detail: detail, at: Date(timeIntervalSince1970: record.wall))
                try append([RecordedSample(time: record.boot, tripID: state.currentTrip, payload: .event(event, detail))], &state)
            case CaptureState.health:
                let seconds = detail["seconds"].flatMap(Double.init) ?? 0
                let report = state.meter.report(seconds: seconds, pairings: pairings)
                try append([RecordedSample(time: record.boot, tripID: state.currentTrip, payload: .radioHealth(report))], &state)
            default:
                break
            }
        }
    }

    /// A fix, as the daemon's recorder takes it: only with a 2D fix or better, while running.
    private func observe(_ fix: Fix, at boot: Double, _ state: inout ReplayState) throws {
        guard fix.mode >= 2, state.running, !state.sleeping else { return }
        if let time = fix.time { state.stamper.gnss(time: time, atBoot: boot) }
        state.trips.wallOffset = state.stamper.wall(0)
        try commit(state.trips.observe(.fix(fix, at: boot)), &state)
    }

    private func commit(_ recorded: [RecordedSample], _ state: inout ReplayState) throws {
        guard !recorded.isEmpty else { return }
        let samples = state.stamper.stamp(recorded)
        for change in state.stamper.recordTrips(recorded, stamped: samples, in: recordings) {
            state.tripIDs.insert(change.id)
            if let event = change.event { try? store.record(event.kind, detail: event.detail, at: Date(timeIntervalSince1970: change.at)) }
        }
        try append(samples, &state)
    }

    private func append(_ recorded: [RecordedSample], _ state: inout ReplayState) throws {
        try append(state.stamper.stamp(recorded), &state)
    }

    private func append(_ samples: [Sample], _ state: inout ReplayState) throws {
        try state.stamper.append(samples, to: outbox, tracks: recordings)
        for sample in samples { state.counts[sample.kind, default: 0] += 1 }
    }
}
