import Basics
import FoundationEssentials
import Gateway
import Location
import Logging
import Session
import Upload

/// The daemon's side of the session and the upload queue: refreshes the
/// session before it expires and uploads queued samples, but only while the
/// persisted session is authorized. Started at launch, where it flushes what
/// a crash left pending, and re-checked on every reload (a login or logout
/// from the CLI arrives as one).
actor Uplink {
    let session: SessionManager
    let uploader: Uploader<ContinuousClock>
    private var keeper: Task<Void, Never>?
    private var watcher: Task<Void, Never>?
    private var sessionWatcher: Task<Void, Never>?
    private var settingsTimer: Task<Void, Never>?

    let store: GatewayStore
    let settingsInterval: Duration
    /// Told about every session event: the daemon reconciles on each.
    let sessionEvent: @Sendable (AuthorizationEvent) -> Void

    init(session: SessionManager, store: GatewayStore, deviceID: String, upload: Configuration.Upload,
         settingsInterval: Duration, sessionEvent: @escaping @Sendable (AuthorizationEvent) -> Void) {
        self.session = session
        self.store = store
        self.settingsInterval = settingsInterval
        self.sessionEvent = sessionEvent
        uploader = Uploader(outbox: Outbox(database: store.database), deviceID: deviceID, authorization: SessionUploadAuthorization(session),
                            baseURL: { await session.apiBaseURL }, options: upload.options, clock: ContinuousClock(),
                            now: { Date().timeIntervalSince1970 })
    }

    /// Builds the uplink when a session is configured; nil (uploads off) otherwise.
    static func make(
        _ configuration: Configuration, store: GatewayStore, deviceID: String, sessionEvent: @escaping @Sendable (AuthorizationEvent) -> Void
    ) -> Uplink? {
        do {
            return Uplink(session: try SessionFactory.manager(configuration, store: store), store: store, deviceID: deviceID,
                          upload: configuration.upload, settingsInterval: configuration.backend.settingsInterval, sessionEvent: sessionEvent)
        } catch {
            Log.notice("uploads off: \(error)")
            return nil
        }
    }

    func start() async {
        await uploader.start()
        let uploader = uploader, store = store
        watcher = Task {
            for await event in uploader.events {
                switch event {
                case .uploaded(let first, let last): Log.info("upload: samples \(first)–\(last) acknowledged")
                case .dataDropped(let range):
                    Log.warning("upload: dropped samples \(range.firstSeq)–\(range.lastSeq) at the size cap")
                    try? store.record("dataDropped", detail: [
                        "from_seq": String(range.firstSeq), "to_seq": String(range.lastSeq),
                        "from": CivilTime.iso8601(range.firstTime), "to": CivilTime.iso8601(range.lastTime),
                    ])
                default: break
                }
            }
        }
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
                    guard (try? await Task.sleep(for: interval * jitter)) != nil else { return }
                    await self.fetchSettings()
                }
            }
        }
        if keeper == nil {
            let session = session
            keeper = Task {
                await session.keepAlive(clock: ContinuousClock())
                await self.keeperEnded()
            }
        }
        uploader.flush()
    }

    private func keeperEnded() { keeper = nil }

    func flush() { uploader.flush() }

    func stop() async {
        keeper?.cancel()
        watcher?.cancel()
        sessionWatcher?.cancel()
        settingsTimer?.cancel()
        await uploader.stop()
    }
}
