import BluetoothKernel
import Logging
import DBus
import Radio

extension BlueZScanner {
    /// Whether the scan runs under an advertisement monitor rather than as
    /// cycled discovery: in passive mode, and in mgmt mode where bluetoothd
    /// offers monitors or the kernel takes one of the scanner's own (the
    /// kernel then sends every advert on the channel).
    var usesMonitor: Bool {
        switch reception?.mode {
        case .passive?: true
        case .mgmt?: monitorsOffered || addsKernelMonitor
        default: false
        }
    }

    /// Whether the monitor is the scanner's own, added to the kernel: mgmt
    /// mode where bluetoothd offers none, while the kernel takes it.
    var addsKernelMonitor: Bool {
        reception?.mode == .mgmt && !monitorsOffered && kernelMonitorsUsable
    }

    /// Whether the scanner may add its own monitor to the kernel: it holds
    /// the means, and the kernel has not refused one since bluetoothd or the adapter returned.
    var kernelMonitorsUsable: Bool { options.kernelMonitors != nil && !kernelMonitorRefused }

    /// Whether active discovery runs with the do-nothing monitor registered
    /// first: the kernel then starts discovery's scan with the controller's
    /// duplicate filter off (`hci_active_scan_sync`, while
    /// `hci_is_adv_monitoring`), so every advert reaches bluetoothd and
    /// nothing needs cycling. Not where the controller filters by the
    /// monitors' patterns itself.
    var discoversUnderMonitor: Bool {
        reception?.mode == .active && monitorsOffered && !monitorsOffloaded
    }

    /// Starts the scan the way the mode wants it.
    func startScanning(reason: DiscoveryReason) async {
        guard state != .stopped else { return }
        do { try await subscribeToDevices() } catch { deviceSubscriptionFailed(error) }
        if usesMonitor { await startMonitoring(reason: reason) } else { await startDiscovery(reason: reason) }
    }

    /// Registers the monitors with the adapter. The kernel then scans
    /// passively with the duplicate filter off for as long as they stay
    /// registered; nothing needs cycling. A refusal falls back to discovery.
    func startMonitoring(reason: DiscoveryReason) async {
        guard let adapter = adapterPath, state != .stopped else { return }
        generation += 1
        let mine = generation
        enter(.starting)
        // A discovery of ours from an earlier active scan would keep the filter on.
        _ = try? await adapterCall(adapter, "StopDiscovery")
        await unregisterMonitor()
        if addsKernelMonitor { return await startKernelMonitor(on: adapter, generation: mine, reason: reason) }
        do {
            try await registerMonitor(on: adapter)
            guard mine == generation, adapter == adapterPath else { return }
            scanningStarted(on: adapter, reason: reason)
        } catch {
            guard mine == generation else { return }
            monitorRegistered = nil
            if error.name == .accessDenied { return lose(.accessDenied) }
            await monitorsFailed("bluetoothd refused the advertisement monitor (\(error))")
        }
    }

    /// Adds the scanner's own monitor to the kernel; a refusal leaves
    /// discovery cycled until bluetoothd or the adapter returns.
    private func startKernelMonitor(on adapter: String, generation mine: Int, reason: DiscoveryReason) async {
        guard let monitors = options.kernelMonitors else { return }
        let name = AdapterName(path: adapter)
        do throws(ManagementSocketError) {
            guard let index = name.controllerIndex else { throw .unsuitable("\(adapter) names no controller index") }
            let monitor = try await monitors.add(controller: index)
            // Superseded while it was added (another start, a stop): the newer one keeps its own.
            guard mine == generation, adapter == adapterPath else { return await monitors.remove(monitor) }
            kernelMonitor = monitor
            Log.info("scanner: \(name) scans under an advertisement monitor added to the kernel (\(monitor)), as bluetoothd offers none: the controller's duplicate filter is off, nothing to cycle")
            scanningStarted(on: adapter, reason: reason)
        } catch {
            guard mine == generation else { return }
            kernelMonitorRefused = true
            let why = "the kernel refused an advertisement monitor on \(name) (\(error))"
            Log.warning("scanner: \(why); discovery is cycled")
            await startDiscovery(reason: .monitorsFailed(why))
        }
    }

    /// The scan is under way: its watchdog counts from now.
    func scanningStarted(on adapter: String, reason: DiscoveryReason) {
        enter(.scanning)
        discoveryStarted = tick
        report(.discoveryStarted(adapter: AdapterName(path: adapter), reason: reason))
        startTimers()
    }

    func registerMonitor(on adapter: String) async throws(DBusError) {
        let application = try exportMonitors()
        // Set before the call: bluetoothd may release a monitor it refuses
        // before it answers, and that must count.
        monitorRegistered = adapter
        _ = try await connection.call(
            destination: "org.bluez", path: adapter, interface: Self.monitorManager, method: "RegisterMonitor",
            arguments: [.objectPath(application.root)], timeout: .seconds(10))
    }

    /// Monitors stopped working (refused, or released by bluetoothd): not
    /// tried again until bluetoothd or the adapter returns; discovery instead.
    func monitorsFailed(_ why: String) async {
        monitorsOffered = false
        // bluetoothd keeps the application registered after releasing its monitors.
        await unregisterMonitor()
        if reception?.mode == .passive {
            await receiveWhileRunning((ScanReception(mode: .active, reason: "\(why); discovery is cycled"), nil))
        }
        await startDiscovery(reason: .monitorsFailed(why))
    }

    /// A call from bluetoothd to a monitor, other than a device report.
    func monitorCalled(_ call: MonitorApplication.Call) async {
        // A Release of ours handled late finds nothing registered.
        guard call == .release, monitorRegistered != nil, state == .scanning || state == .starting else { return }
        await monitorsFailed("bluetoothd released the advertisement monitor")
    }

    func unregisterMonitor() async {
        if let monitor = kernelMonitor {
            kernelMonitor = nil
            await options.kernelMonitors?.remove(monitor)
        }
        guard let adapter = monitorRegistered, let application = monitorApplication else { return }
        monitorRegistered = nil
        unregistering.value = true
        defer { unregistering.value = false }
        _ = try? await connection.call(
            destination: "org.bluez", path: adapter, interface: Self.monitorManager, method: "UnregisterMonitor",
            arguments: [.objectPath(application.root)], timeout: .seconds(5))
    }

    /// What the monitors watch for. In mgmt mode, nothing: bluetoothd's work
    /// for each advert would be thrown away, unless the controller filters
    /// by the patterns, which then decide what the channel carries too. In
    /// active mode, nothing: discovery brings every advert. Otherwise the
    /// paired identities' patterns, or everything (`MonitorPattern.catchAll`).
    var monitorPatterns: [MonitorPattern] {
        if reception?.mode != .passive, !monitorsOffloaded { return [.nothing] }
        let patterns = options.monitorPatterns ?? MonitorPattern.catchAll
        // The kernel has room for 32 monitors in all; leave most of it to others.
        return patterns.isEmpty || patterns.count > MonitorPattern.catchAll.count ? MonitorPattern.catchAll : patterns
    }

    /// The monitors, exported once per scanner and set of patterns.
    private func exportMonitors() throws(DBusError) -> MonitorApplication {
        let patterns = monitorPatterns
        if let monitorApplication {
            if monitorApplication.monitors.flatMap({ $0 }) == patterns { return monitorApplication }
            monitorApplication.unexport(from: connection)
            self.monitorApplication = nil
        }
        let application = MonitorApplication(patterns: patterns)
        let (table, sink, tick, viaDBus, control, bus, ours) = (devices, deliver, ticker, adverts, controlSink, connection, unregistering)
        try application.export(on: connection) { call in
            switch call {
            case .deviceFound(let path, let monitor):
                // In mgmt mode the same advert comes on the management channel.
                guard viaDBus.value else { return }
                if let sighting = table.found(path, monitor: monitor, at: tick(), shedStrangers: bus.unreadBytes >= Self.behindBytes) {
                    table.judge(path, interesting: sink(sighting))
                }
            case .deviceLost:
                // Not sent without RSSI thresholds: presence is timed from the adverts.
                break
            case .release where ours.value:
                // Called by our own UnregisterMonitor, before its answer: read
                // here, on the connection's loop, in the order they came.
                break
            case .activate, .release:
                control?.yield(.monitor(call))
            }
        }
        monitorApplication = application
        return application
    }
}
