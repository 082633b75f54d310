import Basics
import Advertisements
import BlueZ
import DBus
import Foundation
import Location
import Logging
import Recording
import Session
import Storage
import Upload

/// Recording inside the daemon: the reconciler decides whether the runtime
/// (a BlueZ scanner, and taking the daemon's fixes) runs; sightings of
/// paired devices and fixes go through the trip recorder into the outbox.
///
/// The intent and the heartbeat live in the store, so a restart re-arms by
/// itself and sees how long it was dead.
///
/// Trips, presence and gaps are timed on the boot clock (`CLOCK_BOOTTIME`),
/// which never jumps; only samples get wall-clock times, each with its
/// source, and unsynced ones are re-stamped once the clock is trusted.
actor RecorderService {
    let store: GatewayStore
    let recordings: RecordingStore
    let outbox: Outbox
    let configuration: Configuration
    let bus: DBusConnection?
    let isAuthorized: @Sendable () async -> Bool
    /// Told about new samples and trip ends (the uploader).
    let samplesCommitted: @Sendable (_ count: Int, _ tripEnded: Bool) async -> Void

    private var reconciler: Reconciler
    private var trips: TripRecorder
    private var runtime: [Task<Void, Never>] = []
    private var scanner: BlueZScanner<ContinuousClock>?
    private var observations: AsyncStream<Observation>.Continuation?
    private var timer: Task<Void, Never>?
    private var pairings: [String: Pairing] = [:]
    private var heartbeatStored = 0.0
    /// Between logind's PrepareForSleep(true) and (false): nothing is collected.
    private var sleeping = false
    /// A commit failed for lack of space: storage counts as missing until a reload.
    private var storageFull = false
    private var lastMissing: [Requirement] = []

    let clock: any SystemClock
    private var timeBase = TimeBase()
    /// The time source of the last samples stamped, to re-stamp once it becomes trusted.
    private var lastSource: TimeSource?

    init(store: GatewayStore, configuration: Configuration, bus: DBusConnection?, clock: any SystemClock = KernelClock(),
         isAuthorized: @escaping @Sendable () async -> Bool, samplesCommitted: @escaping @Sendable (Int, Bool) async -> Void) {
        self.store = store
        self.clock = clock
        recordings = RecordingStore(database: store.database)
        outbox = Outbox(database: store.database)
        self.configuration = configuration
        self.bus = bus
        self.isAuthorized = isAuthorized
        self.samplesCommitted = samplesCommitted
        let recording = configuration.recording
        let reading = clock.read()
        let heartbeat = (try? recordings.heartbeat) ?? nil
        reconciler = Reconciler(intent: (try? recordings.intent) ?? .disarmed, lastCollected: heartbeat?.onBootClock(reading),
                                gapThreshold: Self.seconds(recording.gapThreshold))
        var tripOptions = TripDetector.Options()
        tripOptions.startSightings = recording.tripStartSightings
        tripOptions.startWindow = Self.seconds(recording.tripStartWindow)
        tripOptions.lostTimeout = Self.seconds(recording.beaconLostTimeout)
        tripOptions.reopenWindow = Self.seconds(recording.reopenWindow)
        tripOptions.maxDuration = Self.seconds(recording.maxTripDuration)
        var sampleOptions = SamplePolicy.Options()
        sampleOptions.fixInterval = Self.seconds(recording.fixInterval)
        sampleOptions.beaconInterval = Self.seconds(recording.beaconInterval)
        sampleOptions.sensorInterval = Self.seconds(recording.sensorInterval)
        trips = TripRecorder(trips: tripOptions, samples: sampleOptions)
        // A trip the last process left open goes on if the beacon is back in time.
        if let open = ((try? recordings.trips()) ?? []).last, open.end == nil {
            let lastSeen = heartbeat?.onBootClock(reading) ?? 0
            let length = max(0, (heartbeat?.wall ?? open.start.timeIntervalSince1970) - open.start.timeIntervalSince1970)
            trips.restore(tripID: open.id, start: lastSeen - length, lastSeen: lastSeen)
            Log.notice("recording: trip \(open.id) was open at the last stop; it continues if the beacon is back within the reopen window")
        }
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
    }

    /// Now on the boot clock: the timeline of trips, presence and gaps.
    private var now: Double { clock.boot() }

    /// The wall time of a boot-clock time, and how far to trust it.
    private func stamp(_ boot: Double) -> (time: Double, source: TimeSource, reading: ClockReading) {
        let reading = clock.read()
        let (time, source) = timeBase.wall(at: boot, reading)
        return (time, source, reading)
    }

    private func wall(_ boot: Double) -> Double { stamp(boot).time }

    private func storeHeartbeat(_ boot: Double) {
        let stamped = stamp(boot)
        try? recordings.setHeartbeat(Heartbeat(wall: stamped.time, source: stamped.source, boot: boot, bootID: stamped.reading.bootID))
    }

    var running: Bool { reconciler.running }
    var intent: Reconciler.Intent { reconciler.intent }

    /// `waymark start` / `stop` (and login / logout): the only ways the intent changes.
    func setIntent(_ intent: Reconciler.Intent, missing: [Requirement]) async {
        do { try recordings.setIntent(intent) } catch { Log.error("recording: cannot store the intent: \(error)") }
        Log.notice("recording: \(intent.rawValue)")
        await reconcile(missing: missing)
    }

    /// Matches the runtime to the intent; at launch and whenever the system
    /// becomes active again. Guarded by the session; never logs out.
    func reconcile(missing: [Requirement]) async {
        lastMissing = missing
        let missing = storageFull ? missing + [.storage] : missing
        // Running and awake, the gateway could collect all along, even with
        // nothing in sight: no gap. Resume, restarts and requirements that
        // come back are measured from the heartbeat.
        if reconciler.running && !sleeping { reconciler.collected(at: now) }
        reconciler.intent = (try? recordings.intent) ?? reconciler.intent
        // Remote settings may override the gap threshold.
        if let remote = ((try? SessionStore(database: store.database).settings()) ?? nil)?.gapThreshold {
            reconciler.gapThreshold = remote
        }
        let actions = reconciler.reconcile(at: now, authorized: await isAuthorized(), missing: missing.map(\.rawValue))
        for action in actions {
            switch action {
            case .startRuntime: await startRuntime()
            case .stopRuntime: await stopRuntime()
            case .report(let event): report(event)
            }
        }
    }

    private func report(_ event: Reconciler.Event) {
        switch event {
        case .requirementsMissing(let missing):
            Log.notice("recording: requirements missing: \(missing.isEmpty ? "none, all restored" : missing.joined(separator: ", "))")
            announce("requirementsMissing", ["missing": missing.joined(separator: " ")])
        case .requirementsLostWhileRunning(let lostAt, let missing):
            Log.warning("recording: lost while running: \(missing.joined(separator: ", "))")
            announce("requirementsLostWhileRunning", ["lost_at": CivilTime.iso8601(wall(lostAt)), "missing": missing.joined(separator: " ")])
        case .telemetryGapDetected(let from, let to):
            let (start, end) = (CivilTime.iso8601(wall(from)), CivilTime.iso8601(wall(to)))
            Log.warning("recording: telemetry gap from \(start) to \(end) (\(Int((to - from).rounded())) s)")
            announce("telemetryGapDetected", ["from": start, "to": end, "seconds": String(Int((to - from).rounded()))])
        }
    }

    /// Stores an event, sends it as the control interface's `Event` signal,
    /// and (for the reconciler's events) queues it for upload with the samples.
    func announce(_ kind: String, _ detail: [String: String], upload: Bool = true) {
        try? store.record(kind, detail: detail)
        let json = (try? JSONEncoder.sorted.encode(detail)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        try? bus?.emit(path: ControlInterface.path, interface: ControlInterface.interface, name: "Event", arguments: [.string(kind), .string(json)])
        guard upload else { return }
        let fields = #""type":"\#(kind)""# + (json.count > 2 ? "," + json.dropFirst().dropLast() : "")
        guard (try? outbox.append([sample(RecordedSample(kind: .event, time: now, tripID: currentTrip, fields: fields))])) != nil else { return }
        let committed = samplesCommitted
        Task { await committed(1, false) }
    }

    /// The open trip's id, for the control interface.
    var currentTrip: String? { trips.detector.isActive ? trips.tripID : nil }

    private func startRuntime() async {
        pairings = Dictionary(((try? PairingStore(database: store.database).all()) ?? []).map { ($0.identity, $0) }) { $1 }
        let (observations, sink) = AsyncStream.makeStream(of: Observation.self, bufferingPolicy: .bufferingNewest(4096))
        if let bus {
            // Each cycle brings one report per advertiser; one lost (a
            // collision in busy air) costs the whole cycle. Four cycles per
            // beacon sample interval give each sample four chances.
            let cycle = max(configuration.recording.beaconInterval / 4, .milliseconds(500))
            let options = configuration.bluetooth.scannerOptions(cycle: cycle)
            let paired = pairings, clock = clock
            let scanner = BlueZScanner(connection: bus, options: options, clock: ContinuousClock()) { sighting in
                if let observation = Self.observation(sighting, paired: paired, at: clock.boot) { sink.yield(observation) }
            }
            let events = scanner.events
            runtime.append(Task { for await event in events { self.scannerReported(event) } })
            do { try await scanner.start() } catch { Log.warning("recording: scanner: \(error)") }
            self.scanner = scanner
        }
        self.observations = sink
        runtime.append(Task { for await observation in observations { await self.observe(observation) } })
        let vehicles = pairings.values.filter { $0.role == .vehicle }.count, sensors = pairings.values.filter { $0.role == .sensor }.count
        Log.notice("recording: running (\(vehicles) vehicle beacon, \(sensors) sensors paired)")
    }

    /// The scan mode, logged when chosen; a mode lost while running (or
    /// regained when bluetoothd or the adapter returns) is recorded like a
    /// lost requirement, though scanning goes on.
    private func scannerReported(_ event: ScannerEvent) {
        guard case .reception(let reception, let previous) = event else { return }
        guard let previous else { return Log.notice("recording: scanning in \(reception.mode.rawValue) mode (\(reception.reason))") }
        Log.warning("recording: scan mode changed from \(previous.rawValue) to \(reception.mode.rawValue) while running (\(reception.reason))")
        announce("scanModeChanged", ["from": previous.rawValue, "to": reception.mode.rawValue, "reason": reception.reason])
    }

    /// The scan mode in use and why; nil while not running.
    var scanReception: ScanReception? { get async { await scanner?.reception } }

    /// A fix from the daemon's location reader; recorded only while running.
    func fix(_ fix: Fix) {
        guard fix.mode >= 2 else { return }
        let boot = now
        // The receiver's time dates samples while the system clock is unsynced.
        if let time = fix.time { timeBase.gnss(time: time, atBoot: boot) }
        // Trips are timed by the boot clock, as sightings are; the receiver's
        // own time stays in the fields and dates the track's points.
        observations?.yield(.fix(fields: Self.members(fix), at: boot))
    }

    private func stopRuntime() async {
        runtime.forEach { $0.cancel() }
        runtime = []
        observations?.finish()
        observations = nil
        timer?.cancel()
        if let cycles = await scanner?.cycles { Log.info("recording: scanner stopped after \(cycles.summary)") }
        await scanner?.stop()
        scanner = nil
        storeHeartbeat(reconciler.lastCollected ?? now)
    }

    /// After a reload: if space was freed, the next commit will tell.
    func recheckStorage() { storageFull = false }

    /// The system is about to sleep: make the store durable; nothing
    /// session-related happens here.
    func prepareForSleep() {
        sleeping = true
        storeHeartbeat(reconciler.lastCollected ?? now)
        try? store.database.checkpoint()
        Log.notice("recording: the system is going to sleep; store committed")
    }

    /// The system woke: collection resumes after a reconcile, which reports
    /// the sleep as a gap if it was longer than the threshold.
    func resumed(missing: [Requirement]) async {
        Log.notice("recording: the system woke up")
        await reconcile(missing: missing)
        sleeping = false
    }

    func shutdown() async {
        if reconciler.running { await stopRuntime() }
    }

    /// The newest fix taken while running, for the control interface.
    private(set) var lastFix: String?

    func observe(_ observation: Observation) async {
        guard !sleeping else { return }
        if case .fix(let fields, _) = observation { lastFix = "{" + fields + "}" }
        reconciler.collected(at: now)
        if now - heartbeatStored >= 5 || now < heartbeatStored {
            heartbeatStored = now
            storeHeartbeat(now)
        }
        trips.wallOffset = wall(0)
        await commit(trips.observe(observation))
    }

    /// Time has passed: the trip detector's deadlines are due.
    func tick() async {
        trips.wallOffset = wall(0)
        await commit(trips.tick(at: now))
    }

    private func commit(_ samples: [RecordedSample]) async {
        defer { scheduleTick() }
        guard !samples.isEmpty else { return }
        var ended = false
        for sample in samples {
            guard let action = sample.tripAction, let id = sample.tripID else { continue }
            switch action {
            case .started:
                Log.notice("recording: trip \(id) started")
                try? recordings.tripStarted(id, at: wall(sample.time))
                announce("tripStarted", ["trip_id": id, "at": CivilTime.iso8601(wall(sample.time))], upload: false)
            case .resumed:
                Log.notice("recording: trip \(id) resumed")
            case .ended(_, let reason):
                Log.notice("recording: trip \(id) ended")
                try? recordings.tripEnded(id, at: wall(sample.time), reason: reason.rawValue)
                announce("tripEnded", ["trip_id": id, "at": CivilTime.iso8601(wall(sample.time))], upload: false)
                ended = true
            }
        }
        do {
            try outbox.append(samples.map(sample))
        } catch {
            Log.error("recording: cannot commit \(samples.count) samples: \(error)")
            // Disk full: stop with a requirement-lost event; what is stored stays intact.
            if let error = error as? StorageError, error.isFull, !storageFull {
                storageFull = true
                await reconcile(missing: lastMissing)
            }
            return
        }
        try? recordings.addPoints(samples.compactMap(Self.point))
        await samplesCommitted(samples.count, ended)
    }

    /// A recorded sample as queued: its boot-clock time stamped with the
    /// wall clock and its source. The first stamp from a trusted source
    /// re-stamps this boot's unsynced samples still queued.
    private func sample(_ recorded: RecordedSample) -> Sample {
        let stamped = stamp(recorded.time)
        if stamped.source != .unsynced, lastSource != stamped.source {
            let offset = stamped.time - recorded.time
            if let count = try? outbox.restamp(bootID: stamped.reading.bootID, offset: offset, source: stamped.source), count > 0 {
                Log.notice("recording: the clock is trusted now (\(stamped.source.rawValue)); re-stamped \(count) unsynced samples")
            }
        }
        lastSource = stamped.source
        return Sample(time: stamped.time, tripID: recorded.tripID, kind: Sample.Kind(rawValue: recorded.kind.rawValue) ?? .event,
                      fields: recorded.fields, timeSource: stamped.source, boot: (stamped.reading.bootID, recorded.time))
    }

    /// A fix sample's position, for the trip's track.
    static func point(_ sample: RecordedSample) -> TripPoint? {
        guard sample.kind == .fix, let tripID = sample.tripID,
              let object = try? JSONSerialization.jsonObject(with: Data(("{" + sample.fields + "}").utf8)) as? [String: Any],
              let lat = (object["lat"] as? NSNumber)?.doubleValue, let lon = (object["lon"] as? NSNumber)?.doubleValue else { return nil }
        let time = (object["time"] as? String).flatMap(CivilTime.parseISO8601) ?? sample.time
        return TripPoint(tripID: tripID, time: time, lat: lat, lon: lon, alt: (object["altMSL"] as? NSNumber)?.doubleValue)
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

    /// A paired device's sighting as an observation; nil for strangers.
    /// `clock` is read only for a paired device: strangers in busy air cost no clock reading.
    static func observation(_ sighting: Sighting, paired: [String: Pairing], at clock: () -> Double) -> Observation? {
        let decoded = DecodedSighting(sighting)
        let identities = decoded.adverts.compactMap(\.identity) + ["address:" + sighting.address.uppercased()]
        guard let pairing = identities.lazy.compactMap({ paired[$0] }).first else { return nil }
        let now = clock()
        switch pairing.role {
        case .vehicle:
            return .vehicle(rssi: sighting.rssi, at: now)
        case .sensor:
            guard let advert = decoded.adverts.first(where: { $0.identity != nil }) ?? decoded.adverts.first,
                  let json = try? JSONEncoder.sorted.encode(advert) else { return nil }
            let text = String(decoding: json, as: UTF8.self)
            return .sensor(id: "pairing-\(pairing.id)", fields: String(text.dropFirst().dropLast()), at: now)
        }
    }

    /// A fix's JSON members (gpsd's TPV names), without the braces and class.
    static func members(_ fix: Fix) -> String {
        let json = fix.json
        return String(json.dropFirst(#"{"class":"TPV","#.count).dropLast())
    }
}
