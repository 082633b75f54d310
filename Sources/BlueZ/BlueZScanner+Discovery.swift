import Basics
import BluetoothKernel
import DBus
import Logging
import Radio

extension BlueZScanner {
    /// Stop, (register the do-nothing monitor,) set the filter, start: with
    /// bounded retries on the errors BlueZ gives while an adapter is settling.
    func startDiscovery(reason: DiscoveryReason) async {
        guard let adapter = adapterPath, state != .stopped else { return }
        generation += 1
        let mine = generation
        enter(.starting)
        if monitorRegistered != adapter || !discoversUnderMonitor { await unregisterMonitor() }
        for attempt in 1...max(options.discoveryAttempts, 1) {
            // BlueZ refuses a second StartDiscovery from the same client; stopping
            // first (and ignoring "not started") makes a restart always work.
            _ = try? await adapterCall(adapter, "StopDiscovery")
            do {
                // The filter is chosen as the scan starts: the monitor goes first.
                if discoversUnderMonitor, monitorRegistered == nil {
                    do {
                        try await registerMonitor(on: adapter)
                        Log.info("scanner: discovery on \(AdapterName(path: adapter)) under an advertisement monitor: the controller's duplicate filter is off, nothing to cycle")
                    } catch where error.name != .accessDenied {
                        guard mine == generation else { return }
                        Log.warning("scanner: bluetoothd refused the advertisement monitor (\(error)); discovery is cycled")
                        monitorsOffered = false
                        await unregisterMonitor()
                    }
                }
                _ = try await adapterCall(adapter, "SetDiscoveryFilter", [Self.discoveryFilter])
                _ = try await adapterCall(adapter, "StartDiscovery")
                guard mine == generation, adapter == adapterPath else { return }
                scanningStarted(on: adapter, reason: reason)
                return
            } catch {
                guard mine == generation else { return }
                if error.name == .accessDenied { return lose(.accessDenied) }
                // InProgress, NotReady, Busy, UnknownObject (an adapter settling)
                // and anything else: wait a little longer each time, then retry.
                try? await clock.sleep(for: options.retryDelay * attempt)
            }
        }
        // Out of attempts: wait for the next event (adapter, owner or power change).
        if mine == generation { enter(.poweredOff) }
    }

    func adapterCall(_ adapter: String, _ method: String, _ arguments: [DBusValue] = []) async throws(DBusError) -> [DBusValue] {
        try await discoveryControl.call(
            destination: "org.bluez", path: adapter, interface: "org.bluez.Adapter1", method: method,
            arguments: arguments, timeout: .seconds(5))
    }

    /// While scanning, how long since the last advert, or since this scan
    /// began if none came: the same record the watchdog reads, so `waymark
    /// health` costs the advert path nothing. Not reset by the watchdog's
    /// own restarts.
    public var silence: Duration? {
        guard state == .scanning else { return nil }
        let (now, last) = (tick, devices.lastAdvert)
        return .nanoseconds(Int64(clamping: now > last ? now - last : 0))
    }

    /// New watchdog and expiry periods (settings the fleet pushes), in
    /// force at once: a scan in progress restarts its timers with them.
    public func retune(watchdog: Duration, deviceExpiry: Duration) {
        guard watchdog != options.watchdog || deviceExpiry != options.deviceExpiry else { return }
        (options.watchdog, options.deviceExpiry) = (watchdog, deviceExpiry)
        if state == .scanning { startTimers() }
    }

    /// The watchdog and the cache sweep, running only while scanning.
    func startTimers() {
        var loops = [
            Timers.Loop { [weak self] in await self?.watchdogLoop() },
            Timers.Loop { [weak self] in await self?.sweepLoop() },
        ]
        // A monitor (bluetoothd's, or the scanner's own in the kernel) keeps
        // the duplicate filter off, in the kernel's passive scan and in
        // discovery's active one: nothing to cycle.
        // The cycle runs on discovery's connection's executor: StartDiscovery
        // goes out in the wake-up that read StopDiscovery's reply, which
        // shortens the time not scanning by two thread hand-offs per call.
        if monitorRegistered == nil, kernelMonitor == nil {
            loops.append(Timers.Loop(on: discoveryControl.executor) { [weak self] in await self?.cycleLoop() })
        }
        timers.replace(with: loops)
    }

    /// Every `cycle`, stops and restarts discovery: the kernel keeps the
    /// controller's duplicate filter on, so an advertiser already reported
    /// in this scan would not be reported again, however long it stays.
    /// Busy air never lets the watchdog see silence, so this cannot wait
    /// for one.
    private func cycleLoop() async {
        while !Task.isCancelled, state == .scanning {
            do { try await clock.sleep(for: options.cycle) } catch { return }
            guard state == .scanning, let adapter = adapterPath else { return }
            let mine = generation
            cycling = true
            defer { cycling = false }
            // A cost measured, not a deadline: on the real monotonic clock.
            let stopped = ContinuousClock.now
            _ = try? await adapterCall(adapter, "StopDiscovery")
            // Stopped, or restarted, while the stop was out: this cycle is not ours to finish.
            guard mine == generation, state == .scanning else { return }
            do {
                // No SetDiscoveryFilter: bluetoothd keeps a stopped client's
                // filter while the client stays connected (adapter.c,
                // discovery_remove), and every call here is time not scanning.
                _ = try await adapterCall(adapter, "StartDiscovery")
                cycles.record(off: ContinuousClock.now - stopped)
            } catch {
                guard mine == generation else { return }
                cycles.failures += 1
                cycling = false
                await startDiscovery(reason: .cycleRefused(error.description))
                return
            }
        }
    }

    static var discoveryFilter: DBusValue {
        .vardict(["Transport": .string("le"), "DuplicateData": .bool(true)])
    }

    /// Whether BlueZ says the adapter is discovering now.
    func discovering(_ adapter: String) async -> Bool? {
        let reply = try? await discoveryControl.call(
            destination: "org.bluez", path: adapter, interface: "org.freedesktop.DBus.Properties", method: "Get",
            arguments: [.string("org.bluez.Adapter1"), .string("Discovering")], timeout: .seconds(5))
        return reply?.first?.bool
    }

    /// Sleeps until the watchdog period after the last advert (or the last
    /// start); an advert in the meantime just moves the deadline. A silent
    /// period is a step of the ladder (`WatchdogLadder` decides which), and
    /// an advert resets it.
    private func watchdogLoop() async {
        let base = UInt64(options.watchdog.components.seconds) * 1_000_000_000
            + UInt64(options.watchdog.components.attoseconds / 1_000_000_000)
        while !Task.isCancelled, state == .scanning {
            let period = base * UInt64(ladder.backoff)
            let last = max(devices.lastAdvert, discoveryStarted)
            do { try await clock.sleep(until: origin.advanced(by: .nanoseconds(last + period)), tolerance: nil) } catch { return }
            let advert = devices.lastAdvert
            if advert > advertAtLastStrike, ladder.advertHeard() { report(.radioRecovered) }
            guard state == .scanning, tick >= max(advert, discoveryStarted) + period else { continue }
            advertAtLastStrike = advert
            var action = ladder.silence(underMonitor: usesMonitor)
            if action == .unblockRadio { action = ladder.unblocked(options.unblockRadio()) }
            if let step = action.step { report(.watchdogFired(step: step)) }
            switch action {
            case .restartScan: await startScanning(reason: .watchdogSilence)
            case .restartDiscovery: await startDiscovery(reason: .watchdogSilence)
            case .powerCycle, .powerCycleUnblocked: await powerCycle()
            case .kernelPowerCycle: await powerCycle(throughKernel: true)
            case .reportNeedsPowerCycle, .probe, .unblockRadio: await startDiscovery(reason: .watchdogProbe)
            }
            return
        }
    }

    /// Powers the adapter off and on: through bluetoothd, or below it on the
    /// kernel's management channel.
    private func powerCycle(throughKernel: Bool = false) async {
        guard let adapter = adapterPath else { return }
        // Our own power-off is not a failing adapter: no failover for it.
        cyclingPower = true
        defer { cyclingPower = false }
        if throughKernel, let cycle = options.kernelPowerCycle {
            if let index = AdapterName(path: adapter).controllerIndex {
                do throws(ManagementSocketError) { try await cycle(index) } catch {
                    report(.recoveryFailed(step: .mgmtPowerCycle, reason: error.description))
                }
            } else {
                report(.recoveryFailed(step: .mgmtPowerCycle, reason: "\(adapter) names no controller index"))
            }
        } else {
            for powered in [false, true] {
                _ = try? await connection.call(
                    destination: "org.bluez", path: adapter, interface: "org.freedesktop.DBus.Properties", method: "Set",
                    arguments: [.string("org.bluez.Adapter1"), .string("Powered"), .variant(.bool(powered))], timeout: .seconds(5))
            }
        }
        await startDiscovery(reason: .watchdogPowerCycled)
    }

    /// Every half expiry period, removes unpaired devices unseen for the
    /// expiry period from BlueZ (`Adapter1.RemoveDevice`) and from the table.
    private func sweepLoop() async {
        while !Task.isCancelled, state == .scanning {
            do { try await clock.sleep(for: options.deviceExpiry / 2) } catch { return }
            await expireDevices()
        }
    }

    func expireDevices() async {
        let stale = devices.expire(olderThan: UInt64(options.deviceExpiry.components.seconds) * 1_000_000_000, now: tick)
        guard !stale.isEmpty, let adapter = adapterPath else { return }
        for path in stale {
            _ = try? await adapterCall(adapter, "RemoveDevice", [.objectPath(path)])
        }
        report(.devicesExpired(count: stale.count))
    }
}
