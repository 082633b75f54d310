import Basics
import BlueZ
import CLI
import Command
import Config
import Control
import DBus
import Daemon
import Host
import Lifecycle
import Logging
import Session
import Storage
import Store
import Uplink
import Vocabulary

/// The daemon's one decision loop. Every wake (a reload, a requirement that
/// changed, a session event, suspend and resume, `start` and `stop`) ends
/// in the same place: re-check the requirements, then reconcile the
/// uplink and the recorder with the intent. At start it takes the first
/// look, and arms from the start-up path if the intent and session say so.
struct DaemonController: Service {
    let name = "controller"
    let configuration: Configuration
    let invocation: Invocation
    let bus: DBusConnection?
    let store: GatewayStore
    let state: DaemonState
    let uplink: UplinkHolder
    let inhibitor: SleepInhibitor?
    let wakes: AsyncStream<DaemonWake>
    let wake: AsyncStream<DaemonWake>.Continuation
    /// SIGHUP, caught from launch on: each one is a reload.
    let hangups: SignalSource
    /// Builds the uplink for a configuration (a reload may change the session's).
    let makeUplink: @Sendable (Configuration) -> Uplink?

    var recorder: RecorderService { state.recorder }

    func start() async {
        await RequirementCheck(bus: bus, state: state).evaluate(configuration, initialised: false)
        await recorder.reconcile(missing: await state.missing)
        await lookUpBlueZ()
    }

    func run() async {
        await withTaskGroup(of: Void.self) { group in
            let (wake, hangups) = (wake, hangups)
            group.addTask {
                for await _ in hangups.stream { wake.yield(.reload) }
            }
            await loop()
            group.cancelAll()
        }
    }

    private func loop() async {
        var configuration = configuration
        let requirements = RequirementCheck(bus: bus, state: state)
        for await event in wakes {
            switch event {
            case .reload:
                configuration = await reload(configuration)
                await retune(configuration)
                await requirements.evaluate(configuration)
                await uplink.current?.reconcile()
                await uplink.current?.fetchSettings()
                await recorder.recheckStorage()
                await recorder.reconcile(missing: await state.missing)
            case .flush:
                await uplink.current?.flush()
            case .sleep(true):
                await recorder.prepareForSleep()
                await inhibitor?.release()
            case .sleep(false):
                await inhibitor?.take()
                await requirements.evaluate(configuration)
                await uplink.current?.reconcile()
                await recorder.resumed(missing: await state.missing)
            case .intent(let wanted):
                await recorder.setIntent(wanted, missing: await state.missing)
            case .session(.authorized), .session(.refreshed):
                // Nothing to reconcile: a login arrives as a reload, and the
                // uplink fetches settings after a refresh by itself.
                break
            case .session(let event):
                await sessionChanged(event)
                if event == .remoteSettingsUpdated { await retune(configuration) }
                await uplink.current?.reconcile()
                await recorder.reconcile(missing: await state.missing)
            case .bluetoothChanged, .locationChanged:
                await requirements.evaluate(configuration)
                await recorder.reconcile(missing: await state.missing)
                if case .bluetoothChanged = event { await lookUpBlueZ() }
            }
        }
    }

    /// Tells the recorder bluetoothd's version: at start, and when it comes or goes.
    private func lookUpBlueZ() async {
        guard let bus else { return }
        await recorder.bluez(version: await BluetoothService.find(on: bus)?.version)
    }

    /// The configuration file read again; the running one stays if it is broken.
    private func reload(_ running: Configuration) async -> Configuration {
        switch Result(catching: { () throws(ConfigError) in
            try Configuration.load(path: invocation.configPath, explicit: invocation.configExplicit)
        }) {
        case .success(let reloaded):
            if reloaded.session != running.session || reloaded.backend != running.backend {
                await uplink.replace(with: makeUplink(Self.inForce(reloaded, store: store)))
            }
            Log.threshold = reloaded.logLevel
            Log.notice("configuration reloaded from \(invocation.configPath)")
            return reloaded
        case .failure(let error):
            Log.error("reload failed, keeping the running configuration: \(error)")
            return running
        }
    }

    /// `local` with the fleet's pushed settings over it; a pushed value the
    /// config schema refuses is logged, and the local one stands.
    static func inForce(_ local: Configuration, store: GatewayStore) -> Configuration {
        let overlay = PushedSettings(storedIn: store).applied(to: local)
        for problem in overlay.refused { Log.warning("settings: refusing the fleet's \(problem); the local value stands") }
        return overlay.configuration
    }

    /// Applies the settings in force to the services that read them, at once.
    private func retune(_ local: Configuration) async {
        let configuration = Self.inForce(local, store: store)
        await uplink.current?.retune(configuration.upload)
        await recorder.retune(RecorderSettings(configuration))
    }

    /// Logs, stores, announces and queues what the session manager
    /// reported. A lost authorization stops the runtime at the reconcile
    /// that follows; the intent stays, and a later login resumes.
    private func sessionChanged(_ event: AuthorizationEvent) async {
        switch event {
        case .notAuthorized(let reason):
            Log.warning("session: not authorized (\(reason.rawValue)); recording stops until waymark login")
            await recorder.announce(Event(.notAuthorized, [.reason: reason.rawValue]))
        case .remoteSettingsUpdated:
            Log.notice("session: the fleet's settings changed")
            await recorder.announce(Event(.remoteSettingsUpdated))
        case .policyUpdated:
            Log.notice("session: a fleet command was applied")
            await recorder.announce(Event(.policyUpdated))
        case .authorized, .refreshed:
            break
        }
    }
}
