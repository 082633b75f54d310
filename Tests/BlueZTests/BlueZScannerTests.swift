import Advertisements
import BlueZ
import BluetoothKernel
import DBus
import Foundation
import PeerHarness
import Radio
import Synchronization
import Testing
import Vocabulary

/// The scanner against python-dbusmock's BlueZ on a private bus.
@Suite(.serialized)
struct BlueZScannerTests {
    static let ibeacon = DBusDictEntry(.uint16(0x004C), .variant(.bytes(Advertisement.parseHex("0215e2c56db5dffb48d2b060d0f5a71096e000640000c5")!)))
    static let ruuvi = DBusDictEntry(.uint16(0x0499), .variant(.bytes(Advertisement.parseHex("0512fc5394c37c0004fffc040cac364200cdcbb8334c884f")!)))
    static let tlm = DBusDictEntry(.string("0000feaa-0000-1000-8000-00805f9b34fb"), .variant(.bytes(Advertisement.parseHex("20000b1813000000146700002ac4")!)))
    static let bthome = DBusDictEntry(.string("0000fcd2-0000-1000-8000-00805f9b34fb"), .variant(.bytes(Advertisement.parseHex("4002ca0903bf13")!)))

    @Test func beaconsAndTagsAppearAndDecode() async throws {
        let rig = try await BlueZTestRig()
        defer { rig.stop() }
        try await rig.addAdapter()
        let scanner = BlueZScanner(connection: rig.connection, options: .documented, clock: ContinuousClock())
        try await scanner.startRunning()
        #expect(await scanner.state == .scanning)

        try await rig.addDevice("C0:FF:EE:00:00:01", manufacturer: [Self.ibeacon])
        try await rig.addDevice("C0:FF:EE:00:00:02", service: [Self.tlm])
        try await rig.addDevice("C0:FF:EE:00:00:03", manufacturer: [Self.ruuvi])
        try await rig.addDevice("C0:FF:EE:00:00:04", service: [Self.bthome])

        var formats: [String: String] = [:]
        let sightings = scanner.sightings
        try await withDeadline(.seconds(20), "four decoded devices") {
            var seen: [String: String] = [:]
            for await sighting in sightings {
                seen[sighting.address.description] = decode(sighting).map(\.format).joined(separator: ",")
                if seen.count == 4 { return seen }
            }
            return seen
        }.forEach { formats[$0.key] = $0.value }
        #expect(formats == [
            "C0:FF:EE:00:00:01": "ibeacon", "C0:FF:EE:00:00:02": "eddystone-tlm",
            "C0:FF:EE:00:00:03": "ruuvi", "C0:FF:EE:00:00:04": "bthome",
        ])

        // An RSSI-only update still becomes a sighting, with the last payload.
        try await rig.advertise("C0:FF:EE:00:00:01", rssi: -42)
        let update = try await sightings.next(within: .seconds(20), "RSSI update")
        #expect(update.rssi == -42)
        #expect(update.manufacturerData[0x004C] != nil)
        await scanner.stop()
    }

    /// bluetoothd invalidates RSSI and TxPower of the devices it found at
    /// every discovery stop; taken for a sighting, it would keep a beacon
    /// that has left "present" for one more cycle.
    @Test func aChangeWithoutAdvertDataIsNotASighting() async throws {
        let rig = try await BlueZTestRig()
        defer { rig.stop() }
        try await rig.addAdapter()
        let scanner = BlueZScanner(connection: rig.connection, options: .documented, clock: ContinuousClock())
        try await scanner.startRunning()
        try await rig.addDevice("C0:FF:EE:00:00:07", manufacturer: [Self.ibeacon])
        let sightings = scanner.sightings
        _ = try await sightings.next(within: .seconds(20), "the device's first advert")
        let path = "/org/bluez/hci0/dev_C0_FF_EE_00_00_07"
        for (changed, invalidated) in [([DBusDictEntry](), ["RSSI", "TxPower"]), ([DBusDictEntry(.string("Connected"), .variant(.bool(false)))], [])] {
            _ = try await rig.connection.call(
                destination: "org.bluez", path: path, interface: "org.freedesktop.DBus.Mock", method: "EmitSignal",
                arguments: [.string("org.freedesktop.DBus.Properties"), .string("PropertiesChanged"), .string("sa{sv}as"),
                            .array(element: "v", [.variant(.string("org.bluez.Device1")), .variant(.dictionary(key: "s", value: "v", changed)),
                                                  .variant(.array(element: "s", invalidated.map { .string($0) }))])])
        }
        try await rig.advertise("C0:FF:EE:00:00:07", rssi: -33)
        #expect(try await sightings.next(within: .seconds(20), "the next advert").rssi == -33)
        await scanner.stop()
    }

    @Test func discoveryRestartsWithinTwoSecondsWhenBlueZComesBack() async throws {
        var rig = try await BlueZTestRig()
        defer { rig.stop() }
        try await rig.addAdapter()
        let scanner = BlueZScanner(connection: rig.connection, options: .documented, clock: ContinuousClock())
        try await scanner.startRunning()
        let events = scanner.events

        rig.mock.process.kill(SIGKILL)
        _ = try await events.nextMatching(within: .seconds(20)) { $0 == .state(.serviceAbsent) }

        try await rig.restartMock()
        let returned = ContinuousClock.now
        try await rig.addAdapter()
        _ = try await events.nextMatching(within: .seconds(20)) { if case .discoveryStarted = $0 { true } else { false } }
        #expect(ContinuousClock.now - returned < .seconds(2))
        #expect(try await rig.isDiscovering())
        await scanner.stop()
    }

    /// A bluetoothd that owns its name but lets the call for its objects
    /// time out (stopped here with SIGSTOP, as a busy or hung one) is not
    /// taken for absent: no signal would say it has caught up, so it is asked
    /// again on the clock, and scanning starts once it answers.
    @Test func aBluetoothdThatLetsTheCallTimeOutIsAskedAgainUntilItAnswers() async throws {
        let (rig, clock, documented) = try await BlueZTestRig.activeOnTestClock()
        defer { rig.stop() }
        var options = documented
        options.answerTimeout = .milliseconds(300)
        let scanner = BlueZScanner(connection: rig.connection, options: options, clock: clock)
        let events = scanner.events
        rig.mock.process.kill(SIGSTOP)
        try await scanner.startRunning()
        #expect(await scanner.state == .serviceNotAnswering)
        #expect(Requirement.missing(for: .serviceNotAnswering) == [.bluetoothService])

        // Asked again after 1 s, still silent; then after 2 s more, answering.
        try await clock.waitForSleepers(1)
        clock.advance(by: .seconds(1))
        try await clock.waitForSleepers(1)
        #expect(await scanner.state == .serviceNotAnswering)
        rig.mock.process.kill(SIGCONT)
        clock.advance(by: .seconds(1))
        #expect(clock.sleepers == 1, "the second wait is twice the first")
        clock.advance(by: .seconds(1))
        let started = try await events.nextMatching(within: .seconds(20)) { if case .discoveryStarted = $0 { true } else { false } }
        guard case .discoveryStarted(_, let reason) = started else { return }
        #expect(reason == .bluetoothdAnswered)
        #expect(try await rig.isDiscovering())
        await scanner.stop()
    }

    /// A stop while a discovery cycle waits for bluetoothd (stopped here with
    /// SIGSTOP): once bluetoothd answers, the cycle does not start discovery
    /// again, so nothing the stopped scanner began goes on.
    @Test func aStopDuringADiscoveryCycleLeavesDiscoveryOff() async throws {
        let (rig, clock, options) = try await BlueZTestRig.activeOnTestClock()
        defer { rig.stop() }
        let scanner = BlueZScanner(connection: rig.connection, options: options, clock: clock)
        try await scanner.startRunning()
        #expect(try await rig.isDiscovering())
        try await clock.waitForSleepers(1)
        rig.mock.process.kill(SIGSTOP)
        clock.advance(by: options.cycle)
        // Time for the cycle to send its StopDiscovery, which bluetoothd holds.
        try await Task.sleep(for: .milliseconds(300))
        let stopping = Task { await scanner.stop() }
        rig.mock.process.kill(SIGCONT)
        await stopping.value
        #expect(await scanner.state == .stopped)
        #expect(try await rig.isDiscovering() == false, "a cycle that was out when the scanner stopped started discovery again")
        #expect(try await rig.calls("StartDiscovery").count == 1)
    }

    @Test func discoveryRestartsWhenTheAdapterIsRemovedAndReAdded() async throws {
        let rig = try await BlueZTestRig()
        defer { rig.stop() }
        try await rig.addAdapter()
        let scanner = BlueZScanner(connection: rig.connection, options: .documented, clock: ContinuousClock())
        try await scanner.startRunning()
        let events = scanner.events

        try await rig.mock.control(rig.connection, "RemoveAdapter", [.string("hci0")])
        _ = try await events.nextMatching(within: .seconds(20)) { $0 == .state(.noAdapter) }
        let back = ContinuousClock.now
        try await rig.addAdapter()
        _ = try await events.nextMatching(within: .seconds(20)) { if case .discoveryStarted = $0 { true } else { false } }
        #expect(ContinuousClock.now - back < .seconds(2))
        await scanner.stop()
    }

    @Test func requirementStatesAreReported() async throws {
        // No adapter.
        do {
            let rig = try await BlueZTestRig()
            defer { rig.stop() }
            let scanner = BlueZScanner(connection: rig.connection, options: .documented, clock: ContinuousClock())
            try await scanner.startRunning()
            #expect(await scanner.state == .noAdapter)
            await scanner.stop()
        }
        // A policy that denies org.bluez.
        do {
            let rig = try await BlueZTestRig(policy: .denyBlueZ)
            defer { rig.stop() }
            let scanner = BlueZScanner(connection: rig.connection, options: .documented, clock: ContinuousClock())
            try await scanner.startRunning()
            #expect(await scanner.state == .accessDenied)
            await scanner.stop()
        }
        // An adapter that is off.
        do {
            let rig = try await BlueZTestRig()
            defer { rig.stop() }
            try await rig.addAdapter()
            try await rig.setPowered(false)
            let scanner = BlueZScanner(connection: rig.connection, options: .documented, clock: ContinuousClock())
            try await scanner.startRunning()
            #expect(await scanner.state == .poweredOff)
            let events = scanner.events
            try await rig.setPowered(true)
            _ = try await events.nextMatching(within: .seconds(20)) { if case .discoveryStarted = $0 { true } else { false } }
            await scanner.stop()
        }
    }

    @Test func aRealBluetoothdThatCannotStartIsReportedAbsentWithoutHanging() async throws {
        let bus = try PrivateBus()
        defer { bus.remove() }
        let daemon = try ChildProcess(
            "/usr/libexec/bluetooth/bluetoothd", ["-n"], aptPackage: "bluez", environment: bus.environment,
            logPath: bus.directory.file("bluetoothd.log"))
        // With no kernel Bluetooth it fails at once ("Failed to access management interface").
        let status = try daemon.wait(timeout: 10)
        #expect(status != 0)
        let connection = try await DBusConnection.connect(address: bus.address)
        defer { connection.close() }
        let scanner = BlueZScanner(connection: connection, options: .documented, clock: ContinuousClock())
        try await withDeadline(.seconds(20), "scanner start") { try await scanner.startRunning() }
        #expect(await scanner.state == .serviceAbsent)
        await scanner.stop()
    }

    @Test func theWatchdogClimbsItsLadderToANeededPowerCycleThenProbesSlowerUntilAdvertsReturn() async throws {
        let (rig, clock, documented) = try await BlueZTestRig.activeOnTestClock()
        defer { rig.stop() }
        var options = documented
        options.watchdog = .seconds(60)
        options.deviceExpiry = .seconds(3600)
        // One soft rfkill block to lift, as `rfkill unblock` would.
        options.unblockRadio = { 1 }
        // The kernel's power cycle, which the management channel would carry
        // out, fails as a busy controller's would.
        let kernelCycles = Mutex<[UInt16]>([])
        options.kernelPowerCycle = { index throws(ManagementSocketError) in
            kernelCycles.withLock { $0.append(index) }
            throw .refused(opcode: 5, status: 0x0A)
        }
        // No discovery cycle in the way of counting the watchdog's restarts.
        options.cycle = .seconds(3600)
        let scanner = BlueZScanner(connection: rig.connection, options: options, clock: clock)
        try await scanner.startRunning()
        let events = scanner.events
        _ = try await events.next(within: .seconds(20), "first discovery")
        /// Discovery started again for `reason` (any, when nil: after a power
        /// cycle, the adapter's own power-on may start it first).
        func started(_ reason: String?) async throws {
            _ = try await events.nextMatching(within: .seconds(20)) { event in
                guard case .discoveryStarted(_, let why) = event else { return false }
                return reason == nil || why.description == reason
            }
        }

        // Nothing happens before the period.
        try await clock.waitForSleepers(2)
        clock.advance(by: .seconds(59))
        try await clock.waitForSleepers(2)
        clock.advance(by: .seconds(2))
        _ = try await events.nextMatching(within: .seconds(20)) { $0 == .watchdogFired(step: .restartDiscovery) }
        try await started("watchdog: no adverts")
        for step in [ScannerEvent.WatchdogStep.powerCycle, .rfkillUnblock, .mgmtPowerCycle] {
            try await clock.waitForSleepers(2)
            clock.advance(by: .seconds(61))
            _ = try await events.nextMatching(within: .seconds(20)) { $0 == .watchdogFired(step: step) }
            if step == .mgmtPowerCycle {
                let failed = try await events.nextMatching(within: .seconds(20)) { if case .recoveryFailed = $0 { true } else { false } }
                #expect(failed == .recoveryFailed(step: .mgmtPowerCycle, reason: ManagementSocketError.refused(opcode: 5, status: 0x0A).description))
            }
            try await started(nil)
        }
        #expect(kernelCycles.withLock { $0 } == [0], "hci0, through the kernel, once")
        try await clock.waitForSleepers(2)
        clock.advance(by: .seconds(61))
        _ = try await events.nextMatching(within: .seconds(20)) { $0 == .watchdogFired(step: .needsPowerCycle) }
        try await started("watchdog: probing after the ladder")

        // Probing goes on, reported once, each wait twice the last.
        try await clock.waitForSleepers(2)
        clock.advance(by: .seconds(61))
        try await started("watchdog: probing after the ladder")
        let probes = try await rig.calls("StartDiscovery").count
        try await clock.waitForSleepers(2)
        clock.advance(by: .seconds(61))
        try await Task.sleep(for: .milliseconds(300))
        #expect(try await rig.calls("StartDiscovery").count == probes, "no probe one period later: the period doubled")

        // An advert: the radio is back, and the ladder starts over.
        try await rig.addDevice("C0:FF:EE:00:00:09", manufacturer: [Self.ruuvi])
        _ = try await scanner.sightings.next(within: .seconds(20), "the advert")
        clock.advance(by: .seconds(60))
        _ = try await events.nextMatching(within: .seconds(20)) { $0 == .radioRecovered }
        await scanner.stop()
    }

    @Test func unseenUnpairedDevicesAreRemovedFromBlueZ() async throws {
        let rig = try await BlueZTestRig()
        defer { rig.stop() }
        try await rig.addAdapter()
        let clock = TestClock()
        var options = ScannerOptions.documented
        options.watchdog = .seconds(3600)
        options.deviceExpiry = .seconds(300)
        let scanner = BlueZScanner(connection: rig.connection, options: options, clock: clock)
        try await scanner.startRunning()
        try await rig.addDevice("C0:FF:EE:00:00:09", manufacturer: [Self.ibeacon])
        _ = try await scanner.sightings.next(within: .seconds(20), "sighting")
        let events = scanner.events

        try await clock.waitForSleepers(2)
        clock.advance(by: .seconds(150))
        try await clock.waitForSleepers(2)
        clock.advance(by: .seconds(150))
        _ = try await events.nextMatching(within: .seconds(20)) { $0 == .devicesExpired(count: 1) }
        #expect(scanner.deviceCount == 0)
        let objects = try await rig.connection.call(destination: "org.bluez", path: "/", interface: "org.freedesktop.DBus.ObjectManager", method: "GetManagedObjects")
        #expect(objects.first?.stringKeyed?["/org/bluez/hci0/dev_C0_FF_EE_00_00_09"] == nil)
        await scanner.stop()
    }

    private func decode(_ sighting: Sighting) -> [Advertisement] {
        sighting.manufacturerData.map { AdvertisementDecoder.decode(companyID: $0.key, $0.value) }
            + sighting.serviceData.map { AdvertisementDecoder.decode(serviceUUID: $0.key, $0.value) }
    }
}
