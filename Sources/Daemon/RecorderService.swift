package import Basics
package import BlueZ
import Capture
import FoundationEssentials
import Lifecycle
import Logging
import Pairings
package import Radio
package import Recorder
import Recording
package import Store
import Synchronization
package import Telemetry
package import Vocabulary

/// Recording inside the daemon: it feeds `RecordingCore` (sightings of
/// paired devices and fixes, the core's deadlines, reconciles, sleep and
/// wake) and carries out what the core decides: the BlueZ scanner on or
/// off, samples committed to the outbox, events announced.
///
/// The intent and the heartbeat live in the store, so a restart re-arms by
/// itself and sees how long it was dead.
///
/// Trips, presence and gaps are timed on the boot clock (`CLOCK_BOOTTIME`),
/// which never jumps; only samples get wall-clock times, each with its
/// source, and unsynced ones are re-stamped once the clock is trusted.
package actor RecorderService: Service {
    package nonisolated let name = "recorder"
    let store: GatewayStore
    let recordings: RecordingStore
    private(set) var settings: RecorderSettings
    let isAuthorized: @Sendable () async -> Bool
    /// Told about new samples (the uploader), and how soon they should go.
    let samplesCommitted: @Sendable (_ samples: [Sample], _ urgency: UploadUrgency) async -> Void
    /// Told about every event as it is stored (the control interface's `Event` signal).
    let announced: @Sendable (Event) -> Void
    /// Every sighting the scanner delivers, paired or not, on its queue (for `SightingFeed`).
    let overheard: (@Sendable (Sighting) -> Void)?

    /// The recording rules and the one executor of what they decide; this
    /// actor carries out the effects only a daemon has.
    var executor: RecordingExecutor
    var core: RecordingCore {
        get { executor.core }
        set { executor.core = newValue }
    }
    var stamper: SampleStamper { executor.stamper }
    /// What the last commits could not store, for the next one to try again.
    var unsaved: UnsavedSamples { executor.unsaved }
    /// The stamper's clock, for the location reader's hooks.
    private let bootClock: any SystemClock
    /// When the location reader's last line came, on the boot clock.
    private let lastLocationLine = Mutex(0.0)
    let scanner: ScannerService
    /// Sightings of paired devices and fixes while running, and health
    /// reports; `run` takes them in the capture's order. Never bounded:
    /// nothing of ours is dropped here. Strangers never enter it (the
    /// scanner's handler matches them away, and sheds them unread under
    /// overload), so it holds a few entries a second.
    private let inputs: AsyncStream<RecorderInput>
    let input: AsyncStream<RecorderInput>.Continuation
    /// The core's next deadline (a beacon lost, a trip too long), which `run` waits for.
    let alarm = Alarm(clock: ContinuousClock())
    /// Due when the pairings could not be read and are to be read again.
    let pairingsAlarm = Alarm(clock: ContinuousClock())
    /// The pairings last read from the store; nil until a read succeeds.
    private var lastPairings: [Pairing]?
    /// The pairings the running scan matches.
    private var scanPairings: [Pairing] = []
    /// The core's deadline the alarm is set for, on the boot clock.
    var alarmDeadline: Double?
    /// What the radio does between health reports.
    let health: RadioHealthMeter
    /// When the current health interval began, on the boot clock.
    var healthSince: Double
    /// Where everything heard is captured, when `[Recording] Capture` is set.
    let capture: CaptureTap?
    /// What the gateway runs now, and what the last `gateway_info` sample said.
    package internal(set) var gatewayInfo: GatewayInfo
    var gatewayInfoSent: GatewayInfo?

    package init(store: GatewayStore, settings: RecorderSettings, scanner: ScannerService, info: GatewayInfo, clock: any SystemClock = KernelClock(),
                 capture: CaptureTap? = nil,
                 isAuthorized: @escaping @Sendable () async -> Bool, samplesCommitted: @escaping @Sendable ([Sample], UploadUrgency) async -> Void,
                 announced: @escaping @Sendable (Event) -> Void = { _ in }, overheard: (@Sendable (Sighting) -> Void)? = nil) {
        self.store = store
        self.overheard = overheard
        health = RadioHealthMeter(capture: capture)
        self.capture = capture
        self.scanner = scanner
        (inputs, input) = AsyncStream.makeStream(of: RecorderInput.self)
        let recordings = RecordingStore(database: store.database)
        self.recordings = recordings
        let stamper = SampleStamper(clock: clock, store: store)
        bootClock = clock
        self.settings = settings
        self.isAuthorized = isAuthorized
        self.announced = announced
        gatewayInfo = info
        self.samplesCommitted = samplesCommitted
        let reading = clock.read()
        healthSince = clock.boot()
        let heartbeat = BestEffort.read("the heartbeat", or: nil) { try recordings.heartbeat }
        var core = RecordingCore(intent: BestEffort.read("the intent", or: .disarmed) { try recordings.intent }, lastCollected: heartbeat?.onBootClock(reading),
                                 gapThreshold: settings.gapThreshold, trips: settings.trips, samples: settings.samples)
        // A trip the last process left open goes on if the beacon is back in time.
        if let open = BestEffort.read("the trips", or: [], { try recordings.trips() }).last, open.end == nil {
            let lastSeen = heartbeat?.onBootClock(reading) ?? 0
            let length = max(0, (heartbeat?.wall ?? open.start.timeIntervalSince1970) - open.start.timeIntervalSince1970)
            core.restore(tripID: open.id, start: lastSeen - length, lastSeen: lastSeen)
            Log.notice("recording: trip \(open.id) was open at the last stop; it continues if the beacon is back within the reopen window")
        }
        executor = RecordingExecutor(core: core, stamper: stamper, store: store)
    }

    /// The pairings as stored now. A read that fails is never taken as "no
    /// pairings", which would match nothing, in silence: the last ones read
    /// stand, the failure is logged, and the read is tried again shortly,
    /// restarting the scan with what it reads.
    var pairings: [Pairing] {
        do {
            let read = try PairingStore(database: store.database).all()
            lastPairings = read
            return read
        } catch {
            let standing = lastPairings.map { "matching the \($0.count) read before" } ?? "matching none until a read succeeds"
            Log.error("recording: cannot read the pairings: \(error); \(standing); reading them again in \(Self.pairingsRetry)")
            pairingsAlarm.set(after: Self.pairingsRetry)
            return lastPairings ?? []
        }
    }

    /// How long after a failed read of the pairings they are read again.
    static let pairingsRetry = Duration.seconds(5)

    /// The scan, started again once the pairings read differ from those it
    /// matches (see `pairings`; a read that fails again schedules another try).
    private func pairingsRetried() async {
        guard core.running, pairings != scanPairings else { return }
        Log.notice("recording: reading the pairings again, and restarting the scan with them")
        await stopRuntime()
        // A reconcile may have stopped recording while the scan stopped.
        guard core.running else { return }
        await startRuntime()
    }

    /// Now on the boot clock: the timeline of trips, presence and gaps.
    var now: Double { executor.now }

    func storeHeartbeat(_ boot: Double) { executor.storeHeartbeat(boot) }

    package var running: Bool { core.running }
    package var intent: RecordingIntent { core.intent }
    /// The newest fix taken while running, for the control interface.
    package var lastFix: Fix? { core.lastFix }

    /// Settings in force from now on (a reload, or the fleet pushed new
    /// ones): the gap threshold at the next reconcile, the scanner's
    /// watchdog and expiry at once.
    package func retune(_ settings: RecorderSettings) async {
        self.settings = settings
        core.gapThreshold = settings.gapThreshold
        await scanner.retune(watchdog: settings.scanner.watchdog, deviceExpiry: settings.scanner.deviceExpiry)
    }

    /// The recorder's part of `waymark health`.
    package func healthFacts() async -> HealthFacts {
        var facts = HealthFacts()
        let probe = store.probe()
        facts.storeWritable = probe.writeProblem == nil && !core.storageFull
        facts.storeProblem = probe.writeProblem ?? (core.storageFull ? "the disk is full" : "")
        facts.integrity = probe.integrity
        facts.armed = core.intent == .armed
        facts.running = core.running
        if let silence = await scanner.silence {
            facts.silenceSeconds = silence.seconds
            facts.recoveryStep = health.stepSinceAdvert
        }
        facts.needsPowerCycle = BestEffort.read("the radio's events", or: nil) { try store.radioNeedsPowerCycle() } != nil
        facts.authorized = await isAuthorized()
        return facts
    }

    /// `waymark start` / `stop` (and login / logout): the only ways the intent changes.
    package func setIntent(_ intent: RecordingIntent, missing: [Requirement]) async {
        do { try recordings.setIntent(intent) } catch { Log.error("recording: cannot store the intent: \(error)") }
        Log.notice("recording: \(intent.rawValue)")
        await reconcile(missing: missing)
    }

    /// Matches the runtime to the intent; at launch and whenever the system
    /// becomes active again. Guarded by the session; never logs out.
    package func reconcile(missing: [Requirement]) async {
        await handle(.reconcile(await conditions(missing: missing), at: now))
    }

    /// The intent as persisted, the session, and `missing`; a capture keeps them for replay.
    func conditions(missing: [Requirement]) async -> RecordingConditions {
        let conditions = RecordingConditions(intent: BestEffort.read("the intent", or: core.intent) { try recordings.intent }, authorized: await isAuthorized(), missing: missing)
        capture?.state(conditions.captured)
        return conditions
    }

    /// Inputs and the core's deadlines, in one loop each, until stopped.
    package nonisolated func run() async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.alarm.run { await self.tick() } }
            group.addTask { await self.pairingsAlarm.run { await self.pairingsRetried() } }
            for await input in inputs {
                switch input {
                case .observed(let observation): await handle(.observed(observation))
                case .health(let report, let at): await commitHealth(report, at: at)
                }
            }
            group.cancelAll()
        }
        await shutdown()
    }

    /// Feeds the core and carries out what it decides: the store's part by
    /// the executor, the daemon's (scanning, signals, sinks, logs) here.
    func handle(_ input: RecordingCore.Input) async {
        await perform(executor.handle(input))
        scheduleTick()
    }

    /// The effects only a daemon has, in the order the executor reported them.
    func perform(_ effects: [RecordingExecutor.Effect]) async {
        for effect in effects {
            switch effect {
            case .startScanning: await startRuntime()
            case .stopScanning: await stopRuntime()
            case .reported(let event): log(event)
            case .announced(let event, let uploaded):
                announced(event)
                if uploaded { capture?.state(.event(event)) }
            case .tripChanged(let change): Log.notice("recording: trip \(change.id) \(change.verb)")
            case .committed(let samples, let urgency): await samplesCommitted(samples, urgency)
            }
        }
    }

    private func startRuntime() async {
        scanPairings = pairings
        let paired = PairedDevices(scanPairings)
        var options = settings.scanner
        options.monitorPatterns = paired.monitorPatterns
        let (clock, input, health, capture, overheard) = (stamper.clock, input, health, capture, overheard)
        options.onShed = { health.shed() }
        capture?.state(.running(true))
        await scanner.scan(options) { sighting in
            overheard?(sighting)
            // Captured and observed at one reading, so that replay times it alike.
            let reading = capture.map { _ in clock.read() }
            let matched = paired.match(sighting, at: { reading?.boot ?? clock.boot() })
            health.advert(sighting, from: matched?.0.identity, at: reading) {
                if let (_, observation) = matched { input.yield(.observed(observation)) }
            }
            return matched != nil
        } event: { event in
            await self.scannerReported(event)
        }
        Log.notice("recording: running (\(paired.vehicles) vehicle beacon, \(paired.sensors) sensors paired)")
    }

    /// The scan mode in use and why; nil while not running.
    package var scanReception: ScanReception? { get async { await scanner.reception } }

    /// Why scanning did not start, while its next start waits; nil otherwise.
    package var scanStartFailure: String? { get async { await scanner.startFailure } }

    /// The adapter scanned; nil while not running.
    package var scanAdapter: AdapterName? { get async { await scanner.adapter } }

    /// A line from the location reader's trace, as it is read, and the
    /// fixes whose epochs it closed: stamped once, for the capture and for
    /// the fixes, which join the sightings' stream at once in the
    /// capture's order. Trips are timed by the boot clock; the receiver's
    /// own time stays in the fix and dates the track's points.
    package nonisolated func locationLine(_ line: [UInt8], gpsd: Bool, closed: [Fix]) {
        let reading = capture.map { _ in bootClock.read() }
        let boot = reading?.boot ?? bootClock.boot()
        lastLocationLine.withLock { $0 = boot }
        health.inCaptureOrder(.location(LocationLine(speaks: gpsd ? .gpsd : .nmea, bytes: line)), at: reading) {
            for fix in closed { input.yield(.observed(.fix(fix, at: boot))) }
        }
    }

    /// An epoch the location reader closed without a line: the fix is timed
    /// from the last line, as replay times it from the capture's record.
    package nonisolated func epochClosed(_ fix: Fix, afterLastLine: Duration) {
        let at = lastLocationLine.withLock { $0 } + afterLastLine.seconds
        health.inCaptureOrder(.state(.epochClosed(afterLastLine: afterLastLine.seconds))) {
            input.yield(.observed(.fix(fix, at: at)))
        }
    }

    /// Scanning stops; the core's deadlines still come, as in replay, so a
    /// trip whose beacon was last seen before the stop ends in time.
    private func stopRuntime() async {
        await scanner.stop()
        capture?.state(.running(false))
        health.follow(adapter: nil)
    }

    /// Stopping the daemon stops the runtime, not the intent: the next start re-arms.
    func shutdown() async {
        guard core.running else { return }
        await stopRuntime()
        storeHeartbeat(core.reconciler.lastCollected ?? now)
    }
}
