import Basics
import BlueZ
import BluetoothKernel
import CLI
import Capture
package import Command
package import Config
import Control
import DBus
import Daemon
internal import Glibc
import Host
import Lifecycle
import Logging
import MQTT
import Radio
import Recorder
import Recording
import Session
import Storage
import Store
import Uplink
import Upload
import Vocabulary

/// `waymark run`: the composition root. It opens the store and the system
/// bus, then runs the daemon's services in one `ServiceGroup` until SIGTERM
/// or SIGINT, and stops them in reverse order.
///
/// Everything waits on events (signals, D-Bus signals, the location
/// reader); an idle daemon makes no wake-ups of its own.
package struct GatewayDaemon {
    package var configuration: Configuration
    package var invocation: Invocation

    package init(configuration: Configuration, invocation: Invocation) {
        (self.configuration, self.invocation) = (configuration, invocation)
    }

    package func run() async -> ExitCode {
        let store: GatewayStore
        switch StoreAccess.open(invocation, for: "run") {
        case .store(let opened): store = opened
        case .absent: return .software
        case .failed(let code): return code
        }
        let deviceID = BestEffort.read("the device id", or: "") { try store.deviceID }
        Log.notice("waymark \(Waymark.version) starting: store \(invocation.storePath), device \(deviceID)")
        // Caught from here on, so that a signal during start-up stops cleanly too.
        let stop = SignalSource([SIGTERM, SIGINT])
        let hangups = SignalSource([SIGHUP])
        let bus: DBusConnection?
        do {
            bus = try await DBusConnection.system()
        } catch {
            Log.warning("no system bus: \(error)")
            bus = nil
        }

        // Wakes: everything the controller reacts to, from every service.
        // The services start with the fleet's last pushed settings in force.
        let local = configuration, configuration = DaemonController.inForce(configuration, store: store)
        let (wakes, wake) = AsyncStream.makeStream(of: DaemonWake.self)
        let uplink = UplinkHolder(nil)
        // A monitor this daemon adds to the kernel outlives a kill: its handle is kept for the next start to remove.
        let record = KernelMonitorRecord(path: DurableFile.directory(of: invocation.storePath) + "/kernel-monitors")
        let scanner = ScannerService(bus: bus, kernelMonitors: KernelMonitors(record: record))
        let capture = configuration.recording.capture.flatMap { directory in
            CaptureTap.open(.directory(directory, maxBytes: configuration.recording.captureMaxBytes, keep: 8), configPath: invocation.configPath, store: store)
        }
        let feed = bus.map { SightingFeed(bus: $0) }
        var overheard: (@Sendable (Sighting) -> Void)?
        if let feed { overheard = { sighting in feed.publish(sighting) } }
        // Sightings (from the scanner) and fixes (from location) → the recorder → the outbox.
        let recorder = RecorderService.make(
            store: store, configuration: configuration, scanner: scanner, capture: capture,
            isAuthorized: { await uplink.current?.session.isAuthorized ?? false },
            samplesCommitted: { samples, urgency in await uplink.samplesCommitted(samples, urgency) },
            announced: { event in if let bus { ControlInterface.signal(event, on: bus) } },
            overheard: overheard)
        let state = DaemonState(deviceID: deviceID, recorder: recorder, outbox: Outbox(database: store.database), wake: wake)
        // Every event goes to the log through the recorder's executor, on the trips' time base.
        if let aside = store.database.movedAside { await recorder.announce(Event(.storeRecovered, [.movedTo: aside]), upload: false) }
        let makeUplink: @Sendable (Configuration) -> Uplink? = { configuration in
            Uplink.make(configuration, store: store, deviceID: deviceID, state: { await GatewayState(of: recorder) }, command: { name in
                switch name {
                case .start: state.request(.armed)
                case .stop: state.request(.disarmed)
                case .flush: state.requestFlush()
                }
            }, announce: { event in await recorder.announce(event, upload: false) }) { wake.yield(.session($0)) }
        }
        await uplink.install(makeUplink(configuration))
        let inhibitor = bus.map(SleepInhibitor.init)
        let controller = DaemonController(
            configuration: local, invocation: invocation, bus: bus, store: store, state: state,
            uplink: uplink, inhibitor: inhibitor, wakes: wakes, wake: wake, hangups: hangups, makeUplink: makeUplink)

        // In start order; they stop in reverse.
        var services: [ServiceGroup<ContinuousClock>.Entry] = [
            .init(UplinkService(holder: uplink)),
            .init(LocationService(configuration.location, state: state, recorder: recorder, wake: wake)),
        ]
        if let bus { services.append(.init(BusWatchService(bus: bus, wake: wake), onFailure: .report)) }
        if let inhibitor { services.append(.init(inhibitor, onFailure: .report)) }
        services += [.init(scanner), .init(recorder), .init(RadioHealthService(interval: configuration.bluetooth.healthInterval, recorder: recorder)),
                     .init(controller)]
        if let bus, let feed { services.append(.init(ControlInterfaceService(bus: bus, state: state, feed: feed), onFailure: .report)) }
        services.append(.init(SystemdNotifierService(watchdogMicroseconds: SystemdNotifier.watchdogMicroseconds) {
            await state.markReady()
            Self.releaseStartupPages(after: .seconds(30))
        }))

        let group = ServiceGroup(services, clock: ContinuousClock(), stopTimeout: configuration.daemon.stopTimeout) { event in
            switch event {
            case .shuttingDown(let signal): Log.notice("stopping on signal \(signal)")
            case .failed(let name, let description): Log.error("\(name) failed: \(description)")
            case .restarting(let name, let delay): Log.notice("\(name): restarting in \(delay)")
            case .started(let name): Log.debug("\(name) started")
            case .stopped(let name): Log.debug("\(name) stopped")
            case .heldUp(let name, let timeout): Log.error("\(name) did not stop within \(timeout) of being asked; stopping without it")
            }
        }
        var code = ExitCode.ok
        do { try await group.run(until: stop.stream) } catch {
            Log.error("stopping: \(error)")
            code = .software
        }
        capture?.close()
        await recorder.announce(Event(.stopped), upload: false)
        BestEffort.write("checkpoint the store") { try store.checkpoint() }
        bus?.close()
        return code
    }

    /// Once, `delay` after every service has started (so after the first
    /// arming, scan and upload set-up): the code only start-up ran is
    /// unmapped (see `StartupPages`).
    static func releaseStartupPages(after delay: Duration) {
        Task.detached(priority: .background) {
            guard (try? await Task.sleep(for: delay)) != nil else { return }
            let released = StartupPages.release()
            let page = Int(sysconf(Int32(_SC_PAGESIZE))) / 1024
            Log.info("memory: start-up's pages of code unmapped: resident \((released.before * page) / 1024) MiB, now \((released.after * page) / 1024) MiB"
                     + (released.refused > 0 ? " (\(released.refused) mappings refused: \(released.reason ?? ""))" : ""))
        }
    }
}
