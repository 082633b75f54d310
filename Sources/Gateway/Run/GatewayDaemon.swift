import DBus
import FoundationEssentials
internal import Glibc
import Lifecycle
import Location
import Logging
import Recording
import Session
import Storage
import Upload

/// `waymark run`: opens the store, reports missing requirements, keeps them
/// current from bus events, and runs until SIGTERM or SIGINT.
///
/// Everything here waits on events (signals, D-Bus signals); an idle daemon
/// makes no wake-ups of its own.
struct GatewayDaemon {
    var configuration: Configuration
    var invocation: Invocation

    enum Wake: Sendable {
        case signal(Int32)
        case reload
        case bluetoothChanged
        case flush
        case intent(Reconciler.Intent)
        case locationChanged
        case sleep(Bool)
        case session(AuthorizationEvent)
    }

    func run() async -> ExitCode {
        let store: GatewayStore
        switch StoreAccess.open(invocation, for: "run") {
        case .store(let opened): store = opened
        case .absent: return .software
        case .failed(let code): return code
        }
        if let aside = store.database.movedAside { try? store.record("storeRecovered", detail: ["moved_to": aside]) }
        let deviceID = (try? store.deviceID) ?? ""
        Log.notice("waymark \(Waymark.version) starting: store \(invocation.storePath), device \(deviceID)")

        let (wakes, wake) = AsyncStream.makeStream(of: Wake.self)
        let signals = SignalSource([SIGTERM, SIGINT, SIGHUP])
        let (reloads, reload) = AsyncStream.makeStream(of: Void.self)
        let (flushes, flush) = AsyncStream.makeStream(of: Void.self)
        let (intents, intent) = AsyncStream.makeStream(of: Reconciler.Intent.self)
        let state = DaemonState(deviceID: deviceID, reloads: reload, flushes: flush, intents: intent)
        var tasks = [
            Task { for await number in signals.stream { wake.yield(.signal(number)) } },
            Task { for await _ in reloads { wake.yield(.reload) } },
            Task { for await _ in flushes { wake.yield(.flush) } },
            Task { for await wanted in intents { wake.yield(.intent(wanted)) } },
        ]
        // Launch path: the persisted session decides; pending uploads go first.
        let sessionEvent: @Sendable (AuthorizationEvent) -> Void = { wake.yield(.session($0)) }
        let uplink = UplinkHolder(Uplink.make(configuration, store: store, deviceID: deviceID, sessionEvent: sessionEvent))
        await uplink.current?.start()

        let bus: DBusConnection?
        do {
            bus = try await DBusConnection.system()
        } catch {
            Log.warning("no system bus: \(error)")
            bus = nil
        }
        if let bus, let watch = await watchBluetooth(on: bus, wake) { tasks.append(watch) }
        if let bus, let watch = await watchSleep(on: bus, wake) { tasks.append(watch) }
        if let bus, let watch = await watchNetwork(on: bus, wake) { tasks.append(watch) }
        let inhibitor = bus.map(SleepInhibitor.init)
        await inhibitor?.take()
        var configuration = configuration
        await evaluate(configuration, bus: bus, state: state, store: store, initialised: false)
        let recorder = RecorderService(
            store: store, configuration: configuration, bus: bus,
            isAuthorized: { await uplink.current?.session.isAuthorized ?? false },
            samplesCommitted: { count, tripEnded in await uplink.samplesCommitted(count, tripEnded: tripEnded) })
        await state.attach(recorder: recorder, outbox: Outbox(database: store.database))
        // The location source is watched all the time: its state is a
        // requirement, its fixes feed the recorder while it runs.
        var locationOptions = LocationOptions()
        locationOptions.noDataTimeout = configuration.location.noDataTimeout
        let location = LocationReader(source: configuration.location.source, options: locationOptions, clock: ContinuousClock())
        await location.start()
        tasks.append(Task {
            for await event in location.events {
                switch event {
                case .state(let current):
                    await state.update(location: current)
                    wake.yield(.locationChanged)
                case .fix(let fix):
                    await recorder.fix(fix)
                }
            }
        })
        // Arm from the start-up path, if the intent and the session say so.
        await recorder.reconcile(missing: await state.missing)
        // The name appears only once the state behind it is known.
        if let bus { await publish(state, on: bus) }
        SystemdNotifier.notify("READY=1\nSTATUS=running")
        if let watchdog = SystemdNotifier.watchdog() { tasks.append(watchdog) }

        loop: for await event in wakes {
            switch event {
            case .signal(SIGHUP), .reload:
                switch Result(catching: { () throws(ConfigError) in
                    try Configuration.load(path: invocation.configPath, explicit: invocation.configExplicit)
                }) {
                case .success(let reloaded):
                    if reloaded.session != configuration.session || reloaded.backend != configuration.backend {
                        await uplink.replace(with: Uplink.make(reloaded, store: store, deviceID: deviceID, sessionEvent: sessionEvent))
                    }
                    configuration = reloaded
                    Log.threshold = reloaded.logLevel
                    Log.notice("configuration reloaded from \(invocation.configPath)")
                case .failure(let error):
                    Log.error("reload failed, keeping the running configuration: \(error)")
                }
                await evaluate(configuration, bus: bus, state: state, store: store)
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
                await evaluate(configuration, bus: bus, state: state, store: store)
                await uplink.current?.reconcile()
                await recorder.resumed(missing: await state.missing)
            case .intent(let wanted):
                await recorder.setIntent(wanted, missing: await state.missing)
            case .signal(let number):
                Log.notice("stopping on signal \(number)")
                break loop
            case .session(.authorized), .session(.refreshed):
                // Nothing to reconcile: a login arrives as a reload, and the
                // uplink fetches settings after a refresh by itself.
                break
            case .session(let event):
                await sessionChanged(event, recorder: recorder)
                await uplink.current?.reconcile()
                await recorder.reconcile(missing: await state.missing)
            case .bluetoothChanged, .locationChanged:
                await evaluate(configuration, bus: bus, state: state, store: store)
                await recorder.reconcile(missing: await state.missing)
            }
        }

        SystemdNotifier.notify("STOPPING=1")
        tasks.forEach { $0.cancel() }
        await recorder.shutdown()
        await location.stop()
        await inhibitor?.release()
        await uplink.current?.stop()
        try? store.record("stopped")
        try? store.database.checkpoint()
        bus?.close()
        return .ok
    }

    /// Re-checks every requirement; logs, stores and announces a change.
    private func evaluate(
        _ configuration: Configuration, bus: DBusConnection?, state: DaemonState, store: GatewayStore, initialised: Bool = true
    ) async {
        async let bluetooth = BluetoothProbe(adapter: configuration.bluetooth.adapter).missing(on: bus)
        // Once the reader has reported, its state decides; before, a connect probe.
        let locationMissing: [Requirement]
        if let current = await state.location {
            locationMissing = current == .unreachable ? [.location] : []
        } else {
            locationMissing = await LocationProbe(source: configuration.location.source).missing()
        }
        let sorted = (await bluetooth + locationMissing).sorted()
        let previous = await state.update(missing: sorted)
        guard sorted != previous || !initialised else { return }
        for requirement in sorted where !previous.contains(requirement) {
            Log.warning("requirement missing: \(requirement.rawValue): \(requirement.hint)")
        }
        for requirement in previous where !sorted.contains(requirement) {
            Log.notice("requirement restored: \(requirement.rawValue)")
        }
        if sorted.isEmpty { Log.notice("all requirements present") }
        try? store.record("requirementsMissing", detail: ["missing": sorted.map(\.rawValue).joined(separator: " ")])
        try? bus?.emitPropertiesChanged(
            path: ControlInterface.path, interface: ControlInterface.interface,
            changed: ["Requirements": .array(element: "s", sorted.map { .string($0.rawValue) })])
    }

    /// Logs, stores, announces and queues what the session manager
    /// reported. A lost authorization stops the runtime at the reconcile
    /// that follows; the intent stays, and a later login resumes.
    private func sessionChanged(_ event: AuthorizationEvent, recorder: RecorderService) async {
        switch event {
        case .notAuthorized(let reason):
            Log.warning("session: not authorized (\(reason.rawValue)); recording stops until waymark login")
            await recorder.announce("notAuthorized", ["reason": reason.rawValue])
        case .remoteSettingsUpdated:
            Log.notice("session: the fleet's settings changed")
            await recorder.announce("remoteSettingsUpdated", [:])
        case .policyUpdated:
            Log.notice("session: a fleet command was applied")
            await recorder.announce("policyUpdated", [:])
        case .authorized, .refreshed:
            break
        }
    }

    private func publish(_ state: DaemonState, on bus: DBusConnection) async {
        do {
            try bus.export(ControlInterface.object(state), at: ControlInterface.path)
            try await bus.requestName(ControlInterface.busName)
        } catch {
            Log.warning("control interface not available on the system bus (\(error)); install the D-Bus policy from hardware/")
        }
    }

    /// Wakes the daemon whenever BlueZ comes or goes, or an adapter is added,
    /// removed or changes power.
    private func watchBluetooth(on bus: DBusConnection, _ wake: AsyncStream<Wake>.Continuation) async -> Task<Void, Never>? {
        do {
            let owners = try await bus.ownerChanges(of: "org.bluez")
            let objects = try await bus.signals(matching: MatchRule(sender: "org.bluez", interface: "org.freedesktop.DBus.ObjectManager"))
            let adapters = try await bus.signals(matching: MatchRule(
                sender: "org.bluez", interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged",
                pathNamespace: "/org/bluez", arg0: "org.bluez.Adapter1"))
            return Task {
                await withTaskGroup(of: Void.self) { group in
                    group.addTask { for await _ in owners.dropFirst() { wake.yield(.bluetoothChanged) } }
                    group.addTask {
                        for await message in objects where Self.concernsAdapter(message) { wake.yield(.bluetoothChanged) }
                    }
                    group.addTask { for await _ in adapters { wake.yield(.bluetoothChanged) } }
                }
            }
        } catch {
            Log.warning("cannot watch BlueZ on the system bus: \(error)")
            return nil
        }
    }

    /// NetworkManager reporting full connectivity (NM_STATE_CONNECTED_GLOBAL,
    /// 70) after an outage: upload now instead of waiting out the backoff.
    private func watchNetwork(on bus: DBusConnection, _ wake: AsyncStream<Wake>.Continuation) async -> Task<Void, Never>? {
        await watch(MatchRule(sender: "org.freedesktop.NetworkManager", interface: "org.freedesktop.NetworkManager",
                              member: "StateChanged", path: "/org/freedesktop/NetworkManager"),
                    on: bus, what: "NetworkManager", wake) { arguments in
            guard case .uint32(let state)? = arguments.first, state >= 70 else { return nil }
            Log.info("network: connected; uploading")
            return .flush
        }
    }

    /// logind's PrepareForSleep: true before a suspend, false after the resume.
    private func watchSleep(on bus: DBusConnection, _ wake: AsyncStream<Wake>.Continuation) async -> Task<Void, Never>? {
        await watch(MatchRule(sender: "org.freedesktop.login1", interface: "org.freedesktop.login1.Manager",
                              member: "PrepareForSleep", path: "/org/freedesktop/login1"),
                    on: bus, what: "logind for suspend and resume", wake) { arguments in
            arguments.first?.bool.map(Wake.sleep)
        }
    }

    /// Turns the signals matching `rule` into wakes, through `wakeFor` (nil: ignore).
    private func watch(
        _ rule: MatchRule, on bus: DBusConnection, what: String, _ wake: AsyncStream<Wake>.Continuation,
        _ wakeFor: @escaping @Sendable ([DBusValue]) -> Wake?
    ) async -> Task<Void, Never>? {
        do {
            let signals = try await bus.signals(matching: rule)
            return Task {
                for await message in signals {
                    if let arguments = try? message.arguments(), let event = wakeFor(arguments) { wake.yield(event) }
                }
            }
        } catch {
            Log.warning("cannot watch \(what): \(error)")
            return nil
        }
    }

    /// InterfacesAdded/Removed for an adapter, not for one of its many devices.
    private static func concernsAdapter(_ message: DBusMessage) -> Bool {
        guard let arguments = try? message.arguments(), arguments.count == 2 else { return false }
        switch message.member {
        case "InterfacesAdded": return arguments[1].stringKeyed?["org.bluez.Adapter1"] != nil
        case "InterfacesRemoved": return arguments[1].array?.contains(.string("org.bluez.Adapter1")) == true
        default: return false
        }
    }
}
