public import BluetoothKernel
public import DBus
import Logging
public import Radio

extension BlueZScanner {
    /// The mode the options ask for, given what the process may do and what
    /// bluetoothd offers (as last read).
    func choose() -> (ScanReception, ManagementSocket?) {
        Self.choose(options.mode, managementChannel: options.managementChannel, monitorsOffered: monitorsOffered,
                    kernelMonitors: kernelMonitorsUsable)
    }

    /// What `mode` comes to on this system, with the management socket when
    /// that is the choice (`doctor` asks without scanning).
    /// `monitorsOffered`: whether the adapter has `AdvertisementMonitorManager1`;
    /// `kernelMonitors`: whether the scanner may add its own to the kernel.
    public static func choose(
        _ mode: ScanMode, managementChannel: () throws(ManagementSocketError) -> ManagementSocket, monitorsOffered: Bool, kernelMonitors: Bool
    ) -> (ScanReception, ManagementSocket?) {
        let asked = "ScanMode = \(mode.rawValue)"
        let monitors = monitorsOffered ? "bluetoothd offers advertisement monitors" : Self.noMonitors
        switch mode {
        case .active:
            return (ScanReception(mode: .active, reason: asked), nil)
        case .passive:
            return monitorsOffered
                ? (ScanReception(mode: .passive, reason: "\(asked): \(monitors)"), nil)
                : (ScanReception(mode: .active, reason: "\(asked), but \(monitors); discovery is cycled"), nil)
        case .mgmt, .auto:
            do {
                let socket = try managementChannel()
                let scan = monitorsOffered ? "scanning under an advertisement monitor"
                    : kernelMonitors ? "scanning under an advertisement monitor added to the kernel, as \(monitors)"
                    : "discovery cycled, as \(monitors)"
                return (ScanReception(mode: .mgmt, reason: "\(asked): the kernel's management channel is readable (CAP_NET_ADMIN); \(scan)"), socket)
            } catch {
                if mode == .auto, monitorsOffered {
                    return (ScanReception(mode: .passive, reason: "\(asked), but \(error); \(monitors)"), nil)
                }
                let also = mode == .auto ? " and \(monitors)" : ""
                return (ScanReception(mode: .active, reason: "\(asked), but \(error)\(also); adverts come over D-Bus"), nil)
            }
        }
    }

    static var noMonitors: String {
        "bluetoothd offers no advertisement monitors (it needs --experimental)"
    }

    /// Whether the adapter (`wanted`, or the first) offers advertisement
    /// monitors; false when bluetoothd cannot be asked.
    public static func monitorsOffered(on connection: DBusConnection, adapter wanted: String?, timeout: Duration = .seconds(10)) async -> Bool {
        guard let objects = try? await managedObjects(on: connection, timeout: timeout) else { return false }
        return offersMonitors(adapter(in: objects, wanted: wanted).flatMap { objects[$0.0] })
    }

    /// Whether the adapter's objects include an `AdvertisementMonitorManager1` that takes `or_patterns`.
    static func offersMonitors(_ interfaces: [String: DBusValue]?) -> Bool {
        managerLists(interfaces, "SupportedMonitorTypes", "or_patterns")
    }

    /// Whether the controller matches the monitors' patterns itself
    /// (`controller-patterns`, Microsoft's extension): it then reports only
    /// adverts that match, on the management channel too.
    static func offloadsMonitors(_ interfaces: [String: DBusValue]?) -> Bool {
        managerLists(interfaces, "SupportedFeatures", "controller-patterns")
    }

    /// Whether the adapter's `AdvertisementMonitorManager1` has `value` in its string-list property `property`.
    private static func managerLists(_ interfaces: [String: DBusValue]?, _ property: String, _ value: String) -> Bool {
        (interfaces?[monitorManager]?.stringKeyed?[property]?.array ?? []).contains { $0.string == value }
    }

    static var monitorManager: String { "org.bluez.AdvertisementMonitorManager1" }

    /// Switches advert reception to `choice`, the new path first so that
    /// nothing falls between the two. Throws when the D-Bus path's
    /// subscription to device changes is refused: reception is then as
    /// chosen but hears nothing, until `subscribeToDevices` succeeds.
    func receive(_ choice: (ScanReception, ManagementSocket?)) async throws(DBusError) {
        let (new, socket) = choice
        var refused: DBusError?
        if let socket {
            let feed = ManagementFeed(socket: socket, table: devices, tick: ticker, deliver: deliver)
            feed.follow(adapterPath: adapterPath)
            let control = controlSink
            feed.start { control?.yield(.managementFailed($0)) }
            management?.cancel()
            management = feed
            adverts.value = false
            monitorRounds.value = false
            unsubscribeFromDevices()
        } else {
            // Subscribed before anything says the mode changed: an advert
            // right after that must not fall between the two paths.
            do throws(DBusError) { try await subscribe() } catch { refused = error }
            adverts.value = true
            monitorRounds.value = new.mode == .passive
            management?.cancel()
            management = nil
        }
        if new != reception {
            let previous = reception
            reception = new
            report(.reception(new, previous: previous?.mode))
        }
        if let refused { throw refused }
    }

    /// While running: as `receive`, and a refused subscription is logged,
    /// to be tried again when the scan restarts (the watchdog's first step).
    func receiveWhileRunning(_ choice: (ScanReception, ManagementSocket?)) async {
        do { try await receive(choice) } catch { deviceSubscriptionFailed(error) }
    }

    /// Subscribes to `Device1` changes, the D-Bus path's adverts, unless
    /// subscribed already or adverts come over the management channel.
    func subscribeToDevices() async throws(DBusError) {
        guard adverts.value else { return }
        try await subscribe()
    }

    /// Subscribes to the `Device1` changes under the adapter in use, unless
    /// subscribed so already: another adapter's devices are then not even
    /// sent to this process, so a second adapter's traffic (another
    /// client's discovery) costs it nothing. Before an adapter is chosen,
    /// to every device's changes; that subscription goes once one is.
    ///
    /// One subscription per adapter used stays until `stop()` (or the
    /// management channel takes over), muted while another is in use:
    /// dbus-daemon (1.14) takes rules that differ only in `path_namespace`
    /// for the same rule when asked to remove one, and may remove the
    /// newest. The kernel gives a replugged adapter its old index back, so
    /// they are as many as the adapters at most.
    private func subscribe() async throws(DBusError) {
        let namespace = adapterPath
        if let existing = deviceUpdates.first(where: { $0.namespace == namespace }) {
            deviceFeed.value = existing.id
        } else {
            let table = devices, sink = deliver, tick = ticker, rounds = monitorRounds, bus = connection, feed = deviceFeed
            deviceSubscriptions += 1
            let mine = deviceSubscriptions
            let subscription = try await connection.subscribe(Self.propertiesChanged(of: "org.bluez.Device1", under: namespace)) { message in
                guard feed.value == mine, let path = message.path else { return }
                message.withArguments { reader in
                    _ = reader.string()
                    // Read in place: this runs for every advert.
                    let behind = bus.unreadBytes >= Self.behindBytes
                    if let sighting = table.update(path, with: &reader, at: tick(), owedOnly: rounds.value, shedStrangers: behind) {
                        table.judge(path, interesting: sink(sighting))
                    }
                }
            }
            // Stopped while the bus was asked: dropped, the subscription cancels itself.
            guard state != .stopped else { return }
            deviceUpdates.append((namespace, mine, subscription))
            // The adapter changed while the bus was asked: the call for the new one decides.
            guard namespace == adapterPath else { return }
            feed.value = mine
        }
        guard namespace != nil else { return }
        // The rule without a namespace is never taken for another.
        for update in deviceUpdates where update.namespace == nil { update.subscription.cancel() }
        deviceUpdates.removeAll { $0.namespace == nil }
    }

    /// Ends every subscription to device changes.
    func unsubscribeFromDevices() {
        for update in deviceUpdates { update.subscription.cancel() }
        deviceUpdates.removeAll()
    }

    func deviceSubscriptionFailed(_ error: DBusError) {
        Log.error("scanner: the bus refused the subscription to device changes (\(error)); nothing is heard over D-Bus until the scan restarts and it is tried again")
    }

    /// Changes reception while running, and restarts the scan when the way
    /// it runs (monitor or discovery) changes with it. Scanning never stops for it.
    func fallBack(to choice: (ScanReception, ManagementSocket?)) async {
        let monitored = usesMonitor
        await receiveWhileRunning(choice)
        if usesMonitor != monitored, adapterPath != nil, state == .scanning || state == .starting {
            await startScanning(reason: .scanModeChanged)
        }
    }

    /// The management channel broke while running: adverts come over D-Bus
    /// from now on.
    func managementFailed(errno: Int32) async {
        guard reception?.mode == .mgmt else { return }
        let why = errno == 0 ? "closed" : "failed with errno \(errno)"
        await fallBack(to: (ScanReception(mode: .active, reason: "the management channel \(why) while running; adverts come over D-Bus"), nil))
    }

    /// After bluetoothd or an adapter returns: a mode lost earlier is tried
    /// again, and passive mode is left if bluetoothd no longer offers monitors.
    /// The caller (re)starts the scan.
    func retryPreferredMode() async {
        guard options.mode != .active else { return }
        if reception?.mode == .passive, !monitorsOffered {
            return await receiveWhileRunning((ScanReception(mode: .active, reason: "\(Self.noMonitors) since it returned; discovery is cycled"), nil))
        }
        guard reception?.mode == .active else { return }
        let choice = choose()
        if choice.0.mode != .active { await receiveWhileRunning(choice) }
    }

    /// Management events that were not well-formed, since start.
    public var malformedManagementEvents: Int { management?.malformed ?? 0 }
}
