import Basics
import Config
import FoundationEssentials
import Gateway
import Location
import Logging
import MQTT
import Pairings
import Session
import Store
import Telemetry
import Upload
import Vocabulary

/// The daemon's side of the session and the upload queue: refreshes the
/// session before it expires and sends queued samples to each configured
/// sink (the HTTP uploader, the MQTT publisher), but only while the
/// persisted session is authorized. Started at launch, where it flushes what
/// a crash left pending, and re-checked on every reload (a login or logout
/// from the CLI arrives as one).
actor Uplink {
    let session: SessionManager
    /// Nil when `[Upload] Sinks` leaves either out.
    let uploader: Uploader<ContinuousClock>?
    let publisher: MQTTPublisher<ContinuousClock>?
    private var publisherWatcher: Task<Void, Never>?
    private var keeper: Task<Void, Never>?
    private var watcher: Task<Void, Never>?
    private var sessionWatcher: Task<Void, Never>?
    private var settingsTimer: Task<Void, Never>?

    let store: GatewayStore
    let settingsInterval: Duration
    /// Told about every session event: the daemon reconciles on each.
    let sessionEvent: @Sendable (AuthorizationEvent) -> Void
    /// A command from the broker.
    let command: @Sendable (BrokerCommand) -> Void

    init(session: SessionManager, store: GatewayStore, deviceID: String, upload: Configuration.Upload, publisher: MQTTPublisher<ContinuousClock>?,
         settingsInterval: Duration, command: @escaping @Sendable (BrokerCommand) -> Void, sessionEvent: @escaping @Sendable (AuthorizationEvent) -> Void) {
        self.session = session
        self.command = command
        self.store = store
        self.settingsInterval = settingsInterval
        self.sessionEvent = sessionEvent
        self.publisher = publisher
        uploader = upload.sinks.contains(.http)
            ? Uploader(outbox: Outbox(database: store.database, sinks: upload.sinks), deviceID: deviceID,
                       authorization: SessionUploadAuthorization(session), baseURL: { await session.apiBaseURL }, options: upload.options,
                       clock: ContinuousClock(), now: { Date().timeIntervalSince1970 })
            : nil
    }

    /// Builds the uplink when a session is configured; nil (uploads off)
    /// otherwise. `state` is the gateway's, for the MQTT sink.
    static func make(
        _ configuration: Configuration, store: GatewayStore, deviceID: String, state: @escaping @Sendable () async -> GatewayState,
        command: @escaping @Sendable (BrokerCommand) -> Void, sessionEvent: @escaping @Sendable (AuthorizationEvent) -> Void
    ) -> Uplink? {
        let session: SessionManager
        do {
            session = try SessionFactory.manager(configuration, store: store)
        } catch {
            Log.notice("uploads off: \(error)")
            return nil
        }
        var publisher: MQTTPublisher<ContinuousClock>?
        if configuration.upload.sinks.contains(.mqtt) {
            do {
                publisher = try makePublisher(configuration, store: store, deviceID: deviceID, session: session, state: state)
            } catch {
                Log.error("mqtt: off: \(error)")
            }
        }
        return Uplink(session: session, store: store, deviceID: deviceID, upload: configuration.upload, publisher: publisher,
                      settingsInterval: configuration.backend.settingsInterval, command: command, sessionEvent: sessionEvent)
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

    func start() async {
        if let publisher {
            await publisher.start()
            let events = publisher.events, command = command
            publisherWatcher = Task {
                for await event in events {
                    switch event {
                    case .published(let first, let last): Log.info("mqtt: samples \(first)–\(last) acknowledged")
                    case .command(let name): command(name)
                    default: break
                    }
                }
            }
        }
        guard let uploader else { return await startSession() }
        await uploader.start()
        let store = store
        watcher = Task {
            for await event in uploader.events {
                switch event {
                case .uploaded(let first, let last): Log.info("upload: samples \(first)–\(last) acknowledged")
                case .dataDropped(let range):
                    Log.warning("upload: dropped samples \(range.firstSeq)–\(range.lastSeq) at the size cap")
                    store.note(Event(.dataDropped, [
                        .fromSeq: String(range.firstSeq), .toSeq: String(range.lastSeq),
                        .from: CivilTime.iso8601(range.firstTime), .to: CivilTime.iso8601(range.lastTime),
                    ]))
                default: break
                }
            }
        }
        await startSession()
    }

    private func startSession() async {
        let session = session
        sessionWatcher = Task {
            for await event in session.events {
                if event == .refreshed { await self.fetchSettings() }
                self.sessionEvent(event)
            }
        }
        await reconcile()
        await fetchSettings()
    }

    /// Upload settings in force from now on (the fleet pushed new ones).
    func retune(_ upload: Configuration.Upload) async {
        await uploader?.retune(batchCount: upload.batchSize)
        await publisher?.retune(batchCount: upload.batchSize)
    }

    /// Fetches settings and fleet commands (lock, wipe), while authorized.
    func fetchSettings() async {
        guard await session.isAuthorized else { return }
        do {
            try await session.fetchSettings()
        } catch {
            Log.info("session: settings not fetched: \(error)")
        }
    }

    /// If the persisted session is authorized: keep it refreshed and upload
    /// what is pending. Never logs in or out.
    func reconcile() async {
        guard await session.isAuthorized else {
            keeper?.cancel()
            keeper = nil
            settingsTimer?.cancel()
            settingsTimer = nil
            Log.notice("session: not authorized; queued samples wait for waymark login")
            return
        }
        if settingsTimer == nil {
            let interval = settingsInterval
            // A lock or wipe from the fleet arrives within one interval; start
            // and reload fetch at once by themselves.
            settingsTimer = Task {
                while !Task.isCancelled {
                    let jitter = Double.random(in: 0.9...1.1)
                    guard await ContinuousClock().pause(for: interval * jitter) else { return }
                    await self.fetchSettings()
                }
            }
        }
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

    func flush() async {
        uploader?.flush()
        await publisher?.flush()
    }

    func stop() async {
        keeper?.cancel()
        watcher?.cancel()
        sessionWatcher?.cancel()
        settingsTimer?.cancel()
        publisherWatcher?.cancel()
        await uploader?.stop()
        await publisher?.stop()
    }
}
