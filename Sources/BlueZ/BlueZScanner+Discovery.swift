import DBus

extension BlueZScanner {
    /// Stop, set the filter, start: with bounded retries on the errors BlueZ
    /// gives while an adapter is settling.
    func startDiscovery(reason: String) async {
        guard let adapter = adapterPath else { return }
        generation += 1
        let mine = generation
        enter(.starting)
        for attempt in 1...max(options.discoveryAttempts, 1) {
            // BlueZ refuses a second StartDiscovery from the same client; stopping
            // first (and ignoring "not started") makes a restart always work.
            _ = try? await adapterCall(adapter, "StopDiscovery")
            do {
                _ = try await adapterCall(adapter, "SetDiscoveryFilter", [
                    .vardict(["Transport": .string("le"), "DuplicateData": .bool(true)]),
                ])
                _ = try await adapterCall(adapter, "StartDiscovery")
                guard mine == generation, adapter == adapterPath else { return }
                enter(.scanning)
                lastAdvert = clock.now
                report(.discoveryStarted(adapter: adapter, reason: reason))
                startTimers()
                return
            } catch {
                guard mine == generation else { return }
                switch error.name?.rawValue {
                case "org.bluez.Error.InProgress", "org.bluez.Error.NotReady", DBusErrorName.unknownObject.rawValue, "org.bluez.Error.Busy":
                    try? await clock.sleep(for: options.retryDelay * attempt)
                case DBusErrorName.accessDenied.rawValue:
                    return lose(.accessDenied)
                default:
                    try? await clock.sleep(for: options.retryDelay * attempt)
                }
            }
        }
        // Out of attempts: wait for the next event (adapter, owner or power change).
        if mine == generation { enter(.poweredOff) }
    }

    private func adapterCall(_ adapter: String, _ method: String, _ arguments: [DBusValue] = []) async throws(DBusError) -> [DBusValue] {
        try await connection.call(
            destination: "org.bluez", path: adapter, interface: "org.bluez.Adapter1", method: method,
            arguments: arguments, timeout: .seconds(5))
    }

    /// The watchdog and the cache sweep, running only while scanning.
    private func startTimers() {
        timers.forEach { $0.cancel() }
        timers = [
            Task { [weak self] in await self?.watchdogLoop() },
            Task { [weak self] in await self?.sweepLoop() },
        ]
    }

    /// Sleeps until the watchdog period after the last advert; an advert in
    /// the meantime just moves the next deadline. No advert at all: restart
    /// discovery, and if that brings none either, power-cycle the adapter.
    private func watchdogLoop() async {
        while !Task.isCancelled, state == .scanning {
            let deadline = lastAdvert.advanced(by: options.watchdog)
            do { try await clock.sleep(until: deadline, tolerance: nil) } catch { return }
            guard state == .scanning, clock.now >= lastAdvert.advanced(by: options.watchdog) else { continue }
            watchdogStrikes += 1
            if watchdogStrikes == 1 {
                report(.watchdogFired(step: .restartDiscovery))
                await startDiscovery(reason: "watchdog: no adverts")
            } else {
                watchdogStrikes = 0
                report(.watchdogFired(step: .powerCycle))
                await powerCycle()
            }
            return
        }
    }

    private func powerCycle() async {
        guard let adapter = adapterPath else { return }
        for powered in [false, true] {
            _ = try? await connection.call(
                destination: "org.bluez", path: adapter, interface: "org.freedesktop.DBus.Properties", method: "Set",
                arguments: [.string("org.bluez.Adapter1"), .string("Powered"), .variant(.bool(powered))], timeout: .seconds(5))
        }
        await startDiscovery(reason: "watchdog: after power cycle")
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
        let expiry = UInt64(options.deviceExpiry.components.seconds) * 1_000_000_000
        let now = tick
        let stale = devices.filter { !$0.value.paired && now &- $0.value.lastSeen >= expiry }.map(\.key)
        guard !stale.isEmpty, let adapter = adapterPath else { return }
        for path in stale {
            devices[path] = nil
            _ = try? await adapterCall(adapter, "RemoveDevice", [.objectPath(path)])
        }
        report(.devicesExpired(count: stale.count))
    }
}
