import Basics
package import Config
import FoundationEssentials
import Logging
package import MQTT
import Pairings
package import Session
package import Store
import Telemetry
import Upload
package import Vocabulary

/// The daemon's side of the session and the upload queue: refreshes the
/// session before it expires and sends queued samples to each configured
/// sink (the HTTP uploader, the MQTT publisher), but only while the
/// persisted session is authorized. Started at launch, where it flushes what
/// a crash left pending, and re-checked on every reload (a login or logout
/// from the CLI arrives as one).
package actor Uplink {
    package let session: SessionManager
    /// Applies the fleet's commands that come with its settings.
    let policy: FleetPolicy
    /// Nil when `[Upload] Sinks` leaves either out.
    let uploader: Uploader<ContinuousClock>?
    let publisher: MQTTPublisher<ContinuousClock>?
    /// The session's keep-alive. An exception to `run` owning the loops: it
    /// lives as long as the session is authorized, which `reconcile`
    /// follows, not as long as the uplink.
    private var keeper: Task<Void, Never>?
    /// The next settings fetch, while authorized.
    let settingsAlarm = Alarm(clock: ContinuousClock())
    private var settingsScheduled = false
    /// Finished by `stop`, which ends `run`.
    private let stops: AsyncStream<Void>
    private let stopper: AsyncStream<Void>.Continuation

    let store: GatewayStore
    let settingsInterval: Duration
    /// Told about every session event: the daemon reconciles on each.
    let sessionEvent: @Sendable (AuthorizationEvent) -> Void
    /// A command from the broker.
    let command: @Sendable (BrokerCommand) -> Void
    /// Records an event the uplink has to tell (samples dropped at the
    /// queue's cap), by the recorder's one executor: stamped on the trips'
    /// time base, and re-stamped once the clock is trusted.
    let announce: @Sendable (Event) async -> Void

    init(policy: FleetPolicy, store: GatewayStore, deviceID: String, upload: Configuration.Upload, publisher: MQTTPublisher<ContinuousClock>?,
         settingsInterval: Duration, command: @escaping @Sendable (BrokerCommand) -> Void, announce: @escaping @Sendable (Event) async -> Void,
         sessionEvent: @escaping @Sendable (AuthorizationEvent) -> Void) {
        self.session = policy.session
        self.policy = policy
        self.command = command
        self.announce = announce
        self.store = store
        self.settingsInterval = settingsInterval
        self.sessionEvent = sessionEvent
        self.publisher = publisher
        (stops, stopper) = AsyncStream.makeStream(of: Void.self)
        let session = policy.session
        uploader = upload.sinks.contains(.http)
            ? Uploader(outbox: Outbox(database: store.database, sinks: upload.sinks), deviceID: deviceID,
                       authorization: SessionUploadAuthorization(session), baseURL: { try await session.uploadBaseURL() }, options: upload.options,
                       clock: ContinuousClock(), now: { Date().timeIntervalSince1970 })
            : nil
    }

    /// Builds the uplink when a session is configured; nil (uploads off)
    /// otherwise. `state` is the gateway's, for the MQTT sink.
    package static func make(
        _ configuration: Configuration, store: GatewayStore, deviceID: String, state: @escaping @Sendable () async -> GatewayState,
        command: @escaping @Sendable (BrokerCommand) -> Void, announce: @escaping @Sendable (Event) async -> Void,
        sessionEvent: @escaping @Sendable (AuthorizationEvent) -> Void
    ) -> Uplink? {
        let policy: FleetPolicy
        do {
            policy = try SessionFactory.policy(configuration, store: store)
        } catch {
            Log.notice("uploads off: \(error)")
            return nil
        }
        let session = policy.session
        var publisher: MQTTPublisher<ContinuousClock>?
        if configuration.upload.sinks.contains(.mqtt) {
            do {
                publisher = try makePublisher(configuration, store: store, deviceID: deviceID, session: session, state: state)
            } catch {
                Log.error("mqtt: off: \(error)")
            }
        }
        return Uplink(policy: policy, store: store, deviceID: deviceID, upload: configuration.upload, publisher: publisher,
                      settingsInterval: configuration.backend.settingsInterval, command: command, announce: announce, sessionEvent: sessionEvent)
    }

    private static func makePublisher(
        _ configuration: Configuration, store: GatewayStore, deviceID: String, session: SessionManager,
        state: @escaping @Sendable () async -> GatewayState
    ) throws -> MQTTPublisher<ContinuousClock>? {
        // The config's loading made sure a broker is set.
        guard let settings = try configuration.mqttSettings(deviceID: deviceID) else { return nil }
        let upload = configuration.upload
        var options = MQTTPublisher<ContinuousClock>.Options(
            deviceID: deviceID, topicPrefix: configuration.mqttTopicPrefix(deviceID: deviceID), batchCount: upload.batchSize,
            batchBytes: Int(upload.batchBytes), discovery: configuration.homeAssistantDiscovery(deviceID: deviceID), retryCap: upload.retryCap)
        options.commands = configuration.mqtt.commands
        let labels = BestEffort.read("the sensor labels", or: SensorLabels([])) { try PairingStore(database: store.database).sensorLabels() }
        return try MQTTPublisher(settings: settings, outbox: Outbox(database: store.database, sinks: upload.sinks), options: options, labels: labels,
                                 clock: ContinuousClock(), isAuthorized: { await session.isAuthorized }, state: state)
    }

    /// Keeps the session if it is authorized: what a crash left pending goes
    /// out once authenticated, as soon as `run` runs the sinks.
    func start() async {
        await reconcile()
        await fetchSettings()
    }

    /// The uplink's loops, until `stop` (a reload replacing it) or
    /// cancellation: the sinks and their events, the session's, and the
    /// settings fetch every `settingsInterval`.
    nonisolated func run() async {
        let (session, command, sessionEvent, announce) = (session, command, sessionEvent, announce)
        var loops: [@Sendable () async -> Void] = [
            {
                for await event in session.events {
                    if event == .refreshed { await self.fetchSettings() }
                    sessionEvent(event)
                }
            },
            {
                await self.settingsAlarm.run {
                    await self.fetchSettings()
                    await self.scheduleSettings(again: true)
                }
            },
        ]
        if let publisher {
            loops += [{ await publisher.run() }, {
                for await event in publisher.events {
                    switch event {
                    case .published(let first, let last): Log.info("mqtt: samples \(first)–\(last) acknowledged")
                    case .command(let name): command(name)
                    default: break
                    }
                }
            }]
        }
        if let uploader {
            loops += [{ await uploader.run() }, {
                for await event in uploader.events {
                    switch event {
                    case .uploaded(let first, let last): Log.info("upload: samples \(first)–\(last) acknowledged")
                    case .dataDropped(let range):
                        Log.warning("upload: dropped samples \(range.firstSeq)–\(range.lastSeq) at the size cap")
                        await announce(Event(.dataDropped, [
                            .fromSeq: String(range.firstSeq), .toSeq: String(range.lastSeq),
                            .from: CivilTime.iso8601(range.firstTime), .to: CivilTime.iso8601(range.lastTime),
                        ]))
                    default: break
                    }
                }
            }]
        }
        await withTaskGroup(of: Bool.self) { group in
            for loop in loops {
                group.addTask {
                    await loop()
                    return false
                }
            }
            group.addTask {
                for await _ in self.stops {}
                return true
            }
            while let stopped = await group.next(), !stopped {}
            group.cancelAll()
        }
    }

    /// Upload settings in force from now on (the fleet pushed new ones).
    package func retune(_ upload: Configuration.Upload) async {
        await uploader?.retune(batchCount: upload.batchSize)
        await publisher?.retune(batchCount: upload.batchSize)
    }

    /// Fetches settings and fleet commands (lock, wipe), while authorized.
    package func fetchSettings() async {
        guard await session.isAuthorized else { return }
        do {
            try await policy.update()
        } catch {
            Log.info("session: settings not fetched: \(error)")
        }
    }

    /// If the persisted session is authorized: keep it refreshed and upload
    /// what is pending. Never logs in or out.
    package func reconcile() async {
        guard await session.isAuthorized else {
            keeper?.cancel()
            keeper = nil
            settingsScheduled = false
            settingsAlarm.set(nil)
            Log.notice("session: not authorized; queued samples wait for waymark login")
            return
        }
        scheduleSettings(again: false)
        if keeper == nil {
            let session = session
            keeper = Task {
                await session.keepAlive(clock: ContinuousClock())
                self.keeperEnded()
            }
        }
        await flush()
    }

    private func keeperEnded() { keeper = nil }

    /// A lock or wipe from the fleet arrives within one interval (jittered);
    /// start and reload fetch at once by themselves. `again` after a fetch,
    /// unless a lost authorization cancelled the schedule meanwhile.
    private func scheduleSettings(again: Bool) {
        guard again == settingsScheduled else { return }
        settingsScheduled = true
        settingsAlarm.set(after: settingsInterval * Double.random(in: 0.9...1.1))
    }

    package func flush() async {
        uploader?.flush()
        await publisher?.flush()
    }

    func stop() async {
        keeper?.cancel()
        settingsAlarm.set(nil)
        stopper.finish()
        // At once, not when `run` next gets to it: a replacement is about
        // to connect with the same client id.
        await publisher?.stop()
    }
}
