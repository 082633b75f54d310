import Basics
import BluetoothKernel
public import DBus
import Logging
public import Radio

/// Scans for BLE advertisements through BlueZ's D-Bus API and turns every
/// Device1 update into a `Sighting`.
///
/// It subscribes to InterfacesAdded, InterfacesRemoved and PropertiesChanged
/// first and only then reads `GetManagedObjects`, so no update falls between
/// the two. It follows bluetoothd leaving and returning and adapters coming
/// and going, restarting discovery each time; a watchdog restarts discovery
/// (then power-cycles the adapter) when adverts stop. Timers run on the
/// injected clock.
///
/// `start()` subscribes and starts discovery; `run()` then owns every loop
/// (bluetoothd's comings and goings, adapter changes, the watchdog, the cache
/// sweep, discovery cycles, failover) until `stop()` or cancellation.
public actor BlueZScanner<C: Clock> where C.Duration == Duration {
    public nonisolated let sightings: AsyncStream<Sighting>
    public nonisolated let events: AsyncStream<ScannerEvent>
    private let sightingSink: AsyncStream<Sighting>.Continuation
    private let eventSink: AsyncStream<ScannerEvent>.Continuation

    let connection: DBusConnection
    /// Discovery's own connection (Stop/StartDiscovery, its filter, reading
    /// Discovering): in busy air the scanning connection's queue holds
    /// thousands of device signals, and no reply is read behind them. (The
    /// off time left per cycle is bluetoothd's, which answers after the
    /// burst it is handling: `make bench-air`.) bluetoothd keys a discovery
    /// session by its client, so every discovery call goes through this one.
    /// Opened by `start()`, closed by `stop()`; the scanning connection while absent.
    private var discoveryConnection: DBusConnection?
    var discoveryControl: DBusConnection { discoveryConnection ?? connection }
    var options: ScannerOptions
    let clock: C

    let devices: DeviceTable
    /// The adapter scanned with; only its devices are tracked and reported.
    var adapterPath: String? {
        didSet {
            guard adapterPath != oldValue else { return }
            devices.follow(adapter: adapterPath)
            if let adapterPath { lastAdapter = adapterPath }
        }
    }
    /// The adapter scanning now, as `hci0`.
    public var adapterName: AdapterName? { adapterPath.map(AdapterName.init(path:)) }
    /// The adapter last scanned with, kept when it goes: a different one
    /// chosen later is a failover.
    var lastAdapter: String?
    private(set) public var state: BluetoothState = .starting
    /// Origin of the table's ticks, on the injected clock.
    let origin: C.Instant
    /// Bumped whenever discovery is (re)started, so an older attempt that
    /// resumes after an await knows it was overtaken.
    var generation = 0
    /// The watchdog's decisions; the actor carries them out.
    var ladder: WatchdogLadder
    /// The last advert tick when the watchdog last fired.
    var advertAtLastStrike: UInt64 = 0
    /// When discovery last (re)started, in ticks; the watchdog counts from the later of this and the last advert.
    var discoveryStarted: UInt64 = 0
    private var subscriptions: [SignalSubscription] = []
    var controlSink: AsyncStream<ControlEvent>.Continuation?
    /// What `run()` handles: control events, and bluetoothd's owner changes.
    private var control: AsyncStream<ControlEvent>?
    private var owners: AsyncStream<String?>?
    /// The mode in use and why; nil before `start()`.
    public internal(set) var reception: ScanReception?
    /// Whether adverts come as D-Bus device updates (`active`) rather than
    /// from the management channel; read on the D-Bus connection's loop.
    let adverts = Shared(true)
    /// Whether adverts are counted by a monitor's `DeviceFound` (passive
    /// mode), device updates then only bringing their data.
    let monitorRounds = Shared(false)
    /// Device1 PropertiesChanged under each adapter used (`namespace`, nil
    /// for every device's), subscribed only while adverts come over D-Bus.
    var deviceUpdates: [(namespace: String?, id: Int, subscription: SignalSubscription)] = []
    /// The `id` of the subscription that delivers: the others are muted, so
    /// one advert is never two sightings.
    let deviceFeed = Shared(0)
    /// Subscriptions to device changes made, numbering each.
    var deviceSubscriptions = 0
    var management: ManagementFeed?
    /// Set while a discovery cycle is between its stop and its start, so the
    /// Discovering=false it causes is not taken for BlueZ stopping discovery.
    var cycling = false
    public internal(set) var cycles = DiscoveryCycles()
    /// The watchdog, the sweep and the discovery cycle: running only while scanning.
    let timers = Timers()
    /// When a powered-off adapter has had its time to come back.
    let failover: Alarm<C>
    /// When bluetoothd, which let a call time out, is asked again.
    let askAgain: Alarm<C>
    /// Calls for its objects in a row that bluetoothd let time out.
    var unanswered = 0
    /// The adapter `failover` waits for.
    var failingAdapter: String?
    /// Set while the watchdog power-cycles the adapter itself.
    var cyclingPower = false
    /// Whether the adapter offers advertisement monitors, as last read.
    var monitorsOffered = false
    /// Whether the controller filters adverts by the monitors' patterns (as last read).
    var monitorsOffloaded = false
    /// The monitors, once exported.
    var monitorApplication: MonitorApplication?
    /// The adapter the monitors are registered with, while they are.
    var monitorRegistered: String?
    /// The monitor added to the kernel, while it is (mgmt mode without bluetoothd's).
    var kernelMonitor: KernelMonitor?
    /// Set when the kernel refused the monitor: discovery is cycled until
    /// bluetoothd or the adapter returns.
    var kernelMonitorRefused = false
    /// Set while our own UnregisterMonitor is unanswered: bluetoothd calls
    /// each monitor's Release before it answers, and those are no failure,
    /// even when a new registration is under way by the time they are handled.
    let unregistering = Shared(false)

    /// Sightings go to `sightings`, an async stream. A consumer that keeps up
    /// with every advert (the recorder) can instead pass `onSighting`, which
    /// is called synchronously on the D-Bus connection's loop: no task hop
    /// per advert. It must be quick and must not block. The stream then
    /// stays empty. It returns whether the device is of interest (a
    /// pairing's): while the connection's reader is behind a burst, the
    /// updates of a device found of no interest many times in a row are
    /// shed unread (`ScannerOptions.onShed` counts them), so that paired
    /// devices' updates queued behind them are reached sooner.
    public init(
        connection: DBusConnection, options: ScannerOptions, clock: C,
        onSighting: (@Sendable (Sighting) -> Bool)? = nil
    ) {
        self.connection = connection
        self.options = options
        self.clock = clock
        self.origin = clock.now
        self.ladder = WatchdogLadder(backoffCap: options.probeBackoffCap, kernelPowerCycle: options.kernelPowerCycle != nil)
        self.failover = Alarm(clock: clock)
        self.askAgain = Alarm(clock: clock)
        self.devices = DeviceTable(capacity: options.maxDevices, onShed: options.onShed)
        (sightings, sightingSink) = AsyncStream.makeStream(of: Sighting.self, bufferingPolicy: .bufferingNewest(10_000))
        (events, eventSink) = AsyncStream.makeStream(of: ScannerEvent.self)
        let stream = sightingSink
        deliver = onSighting ?? { stream.yield($0); return true }
    }

    /// Where sightings go: the stream, or the caller's handler, which says
    /// whether the device is of interest (see `onSighting`).
    let deliver: @Sendable (Sighting) -> Bool

    /// Unread bytes on the scanning connection beyond which its reader is
    /// behind, and strangers' adverts are shed: about 50 Device1 updates.
    /// (A Unix socket holds about 48 KiB of them before the bus has to
    /// queue: its buffer is charged per message, not per byte.)
    static var behindBytes: Int { 16 * 1024 }

    /// Subscribes, picks the scan mode, reads the current objects and starts discovery.
    ///
    /// Device updates take a fast path: they are applied to the table and
    /// turned into sightings on the D-Bus connection's loop (or the
    /// management channel's queue) as they arrive. Only the rare control-plane signals (adapters,
    /// bluetoothd) reach the actor.
    public func start() async throws(DBusError) {
        if discoveryConnection == nil {
            do { discoveryConnection = try await connection.sibling(label: "discovery") } catch {
                Log.warning("scanner: no connection of its own for discovery (\(error)); sharing the scanning one")
            }
        }
        let owners = try await connection.ownerChanges(of: "org.bluez")
        let table = devices
        let sink = deliver
        let tick = ticker
        let viaDBus = adverts
        let rounds = monitorRounds
        // Control-plane events are handled one at a time, in arrival order: an
        // adapter removed and re-added must not be processed the other way round.
        let (control, controlSink) = AsyncStream.makeStream(of: ControlEvent.self)
        self.controlSink = controlSink
        subscriptions.append(try await connection.subscribe(MatchRule(
            sender: "org.bluez", interface: "org.freedesktop.DBus.ObjectManager", path: "/")) { message in
            guard let arguments = try? message.arguments(), arguments.count == 2, let path = arguments[0].string else { return }
            if message.member == "InterfacesAdded", let device = arguments[1].stringKeyed?["org.bluez.Device1"]?.entries {
                let fromDBus = viaDBus.value
                if let sighting = table.update(path, with: device, at: tick(), advert: fromDBus, owedOnly: rounds.value), fromDBus {
                    table.judge(path, interesting: sink(sighting))
                }
            }
            if message.member == "InterfacesRemoved" || arguments[1].stringKeyed?["org.bluez.Adapter1"] != nil {
                controlSink.yield(.objects(member: message.member ?? "", path: path, arguments[1]))
            }
        })
        subscriptions.append(try await connection.subscribe(Self.propertiesChanged(of: "org.bluez.Adapter1")) { message in
            guard let path = message.path else { return }
            message.withArguments { reader in
                _ = reader.string()
                if let changed = (try? reader.value())?.stringKeyed { controlSink.yield(.adapter(path: path, changed)) }
            }
        })
        if options.mode != .active { monitorsOffered = await Self.monitorsOffered(on: connection, adapter: options.adapter, timeout: options.answerTimeout) }
        // A scanner whose adverts cannot be subscribed to does not start: run() returns at once.
        try await receive(choose())
        (self.control, self.owners) = (control, owners)
        await synchronize(reason: .start)
    }

    /// Handles bluetoothd's and the adapters' changes, and runs the timers,
    /// until `stop()` or cancellation. Returns at once if `start()` failed.
    public func run() async {
        guard let control, let owners else { return }
        (self.control, self.owners) = (nil, nil)
        let controlSink = controlSink
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                var first = true
                for await owner in owners {
                    // The first element is the owner at subscription; synchronize() reads it anyway.
                    if first { first = false; continue }
                    controlSink?.yield(.owner(owner))
                }
            }
            group.addTask { await self.timers.run() }
            group.addTask { await self.failover.run { await self.failOver() } }
            group.addTask { await self.askAgain.run { await self.askBluetoothdAgain() } }
            for await event in control {
                switch event {
                case .owner(let owner): await ownerChanged(to: owner)
                case .objects(let member, let path, let payload): await objectsChanged(member: member, path: path, payload)
                case .adapter(let path, let changed): await adapterChanged(path: path, changed: changed)
                case .managementFailed(let error): await managementFailed(errno: error)
                case .monitor(let call): await monitorCalled(call)
                }
            }
            group.cancelAll()
        }
    }

    static func propertiesChanged(of interface: String, under namespace: String? = "/org/bluez") -> MatchRule {
        MatchRule(sender: "org.bluez", interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged",
                  pathNamespace: namespace, arg0: interface)
    }

    /// A change that concerns the scanner's own state rather than one device.
    enum ControlEvent: Sendable {
        case owner(String?)
        case objects(member: String, path: String, DBusValue)
        case adapter(path: String, [String: DBusValue])
        /// The management channel stopped working (its errno).
        case managementFailed(Int32)
        /// bluetoothd activated or released a monitor.
        case monitor(MonitorApplication.Call)
    }

    /// Stops discovery, ends `run()` and both streams.
    public func stop() async {
        // Whatever a start still has in flight is stale from here on, and
        // every path that resumes after an await checks for this state.
        let wasScanning = state == .scanning
        state = .stopped
        generation += 1
        timers.replace(with: [])
        failover.set(nil)
        askAgain.set(nil)
        controlSink?.finish()
        subscriptions.forEach { $0.cancel() }
        subscriptions.removeAll()
        unsubscribeFromDevices()
        management?.cancel()
        management = nil
        if let adapterPath, wasScanning, !usesMonitor {
            _ = try? await discoveryControl.call(destination: "org.bluez", path: adapterPath, interface: "org.bluez.Adapter1", method: "StopDiscovery", timeout: .seconds(2))
        }
        await unregisterMonitor()
        discoveryConnection?.close()
        discoveryConnection = nil
        monitorApplication?.unexport(from: connection)
        sightingSink.finish()
        eventSink.finish()
    }

    /// Devices tracked right now.
    public nonisolated var deviceCount: Int { devices.count }

    // MARK: State

    func enter(_ new: BluetoothState) {
        guard new != state, state != .stopped else { return }
        state = new
        eventSink.yield(.state(new))
        if new != .scanning { timers.replace(with: []) }
    }

    func report(_ event: ScannerEvent) { eventSink.yield(event) }

    /// Nanoseconds since the scanner was made, on the injected clock.
    nonisolated var ticker: @Sendable () -> UInt64 {
        let clock = clock
        let origin = origin
        return {
            let elapsed = origin.duration(to: clock.now).components
            return UInt64(max(elapsed.seconds, 0)) * 1_000_000_000 + UInt64(max(elapsed.attoseconds, 0) / 1_000_000_000)
        }
    }

    var tick: UInt64 { ticker() }

    /// Reads every object and picks the adapter; starts discovery if it can.
    func synchronize(reason: DiscoveryReason) async {
        askAgain.set(nil)
        let objects: [String: [String: DBusValue]]
        do {
            let found = try await Self.managedObjects(on: connection, timeout: options.answerTimeout)
            guard state != .stopped else { return }
            guard let found else { return lose(.serviceAbsent) }
            objects = found
        } catch {
            guard state != .stopped else { return }
            if error.name == .noReply { return notAnswering() }
            return lose(Self.state(for: error))
        }
        unanswered = 0
        guard let (path, properties) = Self.adapter(in: objects, wanted: options.adapter, rank: options.adapterRank) else {
            adapterPath = nil
            return enter(.noAdapter)
        }
        if let previous = lastAdapter, previous != path {
            report(.adapterFailover(from: AdapterName(path: previous), to: AdapterName(path: path)))
        }
        adapterPath = path
        let now = tick
        // Cached devices are tracked (for expiry) but not reported: BlueZ's
        // cache says nothing about what is in range now.
        for (path, interfaces) in objects {
            if let device = interfaces["org.bluez.Device1"]?.entries {
                devices.update(path, with: device, at: now, advert: false)
            }
        }
        monitorsOffered = Self.offersMonitors(objects[path])
        kernelMonitorRefused = false
        monitorsOffloaded = Self.offloadsMonitors(objects[path])
        if reason.isRestart { await retryPreferredMode() }
        management?.follow(adapterPath: path)
        guard properties["Powered"]?.bool == true else { return enter(.poweredOff) }
        await startScanning(reason: reason)
    }

    /// bluetoothd owns its name but let the call time out (busy, or hung):
    /// it is asked again later, at a growing interval.
    func notAnswering() {
        lose(.serviceNotAnswering)
        let delay = options.unansweredRetry * (1 << min(unanswered, 5))
        unanswered += 1
        Log.warning("scanner: bluetoothd did not answer within \(options.answerTimeout) (busy or hung); asking again in \(delay)")
        askAgain.set(after: delay)
    }

    func askBluetoothdAgain() async {
        guard state == .serviceNotAnswering else { return }
        // A restart: a mode lost to the silence (no monitors read at start) is tried again.
        await synchronize(reason: .bluetoothdAnswered)
    }

    func lose(_ new: BluetoothState) {
        adapterPath = nil
        // Monitors go with bluetoothd or the adapter.
        monitorRegistered = nil
        management?.follow(adapterPath: nil)
        enter(new)
    }

    /// BlueZ's objects (`GetManagedObjects`), interfaces by name per path; nil
    /// when nobody owns `org.bluez`.
    static func managedObjects(on connection: DBusConnection, timeout: Duration) async throws(DBusError) -> [String: [String: DBusValue]]? {
        guard try await connection.owner(of: "org.bluez") != nil else { return nil }
        let reply = try await connection.call(
            destination: "org.bluez", path: "/", interface: "org.freedesktop.DBus.ObjectManager",
            method: "GetManagedObjects", timeout: timeout)
        return (reply.first?.stringKeyed ?? [:]).compactMapValues(\.stringKeyed)
    }

    /// The adapter named `wanted` (`hci0` or its address); else the best:
    /// powered before not, then by `rank`, then by path. With its Adapter1 properties.
    static func adapter(
        in objects: [String: [String: DBusValue]], wanted: String?, rank: (AdapterName) -> Int = { _ in 0 }
    ) -> (String, [String: DBusValue])? {
        let adapters = objects.compactMapValues { $0["org.bluez.Adapter1"]?.stringKeyed }
        if let wanted {
            return adapters.first { path, properties in
                path.hasSuffix("/" + wanted) || properties["Address"]?.string?.uppercased() == wanted.uppercased()
            }
        }
        let ranked = adapters.keys.map { path in (powered: adapters[path]?["Powered"]?.bool == true ? 0 : 1, rank: rank(AdapterName(path: path)), path: path) }
        return ranked.min { ($0.powered, $0.rank, $0.path) < ($1.powered, $1.rank, $1.path) }.map { ($0.path, adapters[$0.path]!) }
    }

    /// A one-off check of what scanning would need, without scanning.
    public static func probe(_ connection: DBusConnection?, adapter: String?) async -> BluetoothState {
        guard let connection else { return .busUnavailable }
        do {
            guard let objects = try await managedObjects(on: connection, timeout: .seconds(5)) else { return .serviceAbsent }
            guard let (_, properties) = Self.adapter(in: objects, wanted: adapter) else { return .noAdapter }
            return properties["Powered"]?.bool == true ? .starting : .poweredOff
        } catch {
            return state(for: error)
        }
    }

    static func state(for error: DBusError) -> BluetoothState {
        switch error.name {
        case .accessDenied?: .accessDenied
        case .noReply?: .serviceNotAnswering
        case .serviceUnknown?, .nameHasNoOwner?: .serviceAbsent
        default: error == .disconnected ? .busUnavailable : .serviceAbsent
        }
    }
}
