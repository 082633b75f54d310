import Advertisements
import BlueZ
import BluetoothKernel
import DBus
import Foundation
import Glibc
import PeerHarness
import Radio
import Testing
import Vocabulary

/// Passive scanning against python-dbusmock's BlueZ, extended with
/// AdvertisementMonitorManager1 as `bluetoothd --experimental` offers it.
@Suite(.serialized)
struct PassiveScanTests {
    /// The pattern the car's iBeacon (BlueZScannerTests.ibeacon) is watched with.
    static let beacon = MonitorPattern(
        adType: 0xFF, content: [0x4C, 0x00, 0x02, 0x15] + Advertisement.parseHex("e2c56db5dffb48d2b060d0f5a71096e000640000")!)!

    private func options(_ mode: ScanMode) -> ScannerOptions {
        var options = ScannerOptions.documented
        options.mode = mode
        options.managementChannel = { () throws(ManagementSocketError) in throw .notPermitted }
        options.monitorPatterns = [Self.beacon]
        return options
    }

    @Test func autoScansUnderAMonitorWhenBluetoothdOffersOneAndHearsEveryMatchingAdvertWithoutDiscovery() async throws {
        let rig = try await rigOfferingMonitors()
        defer { rig.stop() }
        let clock = TestClock()
        let scanner = BlueZScanner(connection: rig.connection, options: options(.auto), clock: clock)
        let sightings = scanner.sightings
        try await scanner.startRunning()
        let reception = try #require(await scanner.reception)
        #expect(reception.mode == .passive)
        #expect(reception.reason == "ScanMode = auto, but \(ManagementSocketError.notPermitted); bluetoothd offers advertisement monitors")
        #expect(await scanner.state == .scanning)
        #expect(try await rig.calls("RegisterMonitor", on: "/").count == 1)

        try await rig.addDevice("C0:FF:EE:00:00:01", manufacturer: [BlueZScannerTests.ibeacon])
        _ = try await sightings.nextMatching(within: .seconds(20)) { $0.address.description == "C0:FF:EE:00:00:01" }
        // An advert bluetoothd has nothing new for sends no PropertiesChanged:
        // only the monitor's DeviceFound says the beacon is still there. Each
        // is owed its sighting (a change may follow it), which the next pays.
        for round in 1...4 {
            try await rig.mock.control(rig.connection, interface: "io.waymark.BlueZMock", "AdvertiseUnchanged",
                                       [.objectPath("/org/bluez/hci0/dev_C0_FF_EE_00_00_01")])
            guard round > 1 else { continue }
            let heard = try await sightings.next(within: .seconds(20), "DeviceFound \(round)")
            #expect(heard.address.description == "C0:FF:EE:00:00:01" && heard.manufacturerData[0x004C] != nil)
        }

        // Nothing to cycle: the kernel keeps the duplicate filter off under a monitor.
        try await clock.waitForSleepers(2)
        clock.advance(by: .seconds(30))
        try await Task.sleep(for: .milliseconds(300))
        #expect(try await rig.calls("StartDiscovery").isEmpty)
        #expect(await scanner.cycles.count == 0)

        await scanner.stop()
        #expect(try await rig.calls("UnregisterMonitor", on: "/").count == 1)
    }

    @Test func activeDiscoveryStartsUnderTheDoNothingMonitorRegisteredFirstAndIsNeverCycled() async throws {
        let rig = try await rigOfferingMonitors()
        defer { rig.stop() }
        // Every BlueZ method the mock runs, in the order it runs them.
        let (called, calls) = AsyncStream.makeStream(of: String.self)
        let subscription = try await rig.connection.subscribe(MatchRule(
            sender: "org.bluez", interface: "org.freedesktop.DBus.Mock", member: "MethodCalled")) { message in
            if let name = (try? message.arguments())?.first?.string { calls.yield(name) }
        }
        defer { subscription.cancel() }
        let clock = TestClock()
        var options = options(.active)
        options.watchdog = .seconds(600)
        let scanner = BlueZScanner(connection: rig.connection, options: options, clock: clock)
        try await scanner.startRunning()
        var order: [String] = []
        while order.last != "StartDiscovery" { order.append(try await called.next(within: .seconds(20), "StartDiscovery")) }
        // The kernel picks the duplicate filter as the scan starts: the monitor must be there.
        #expect(order.filter { ["RegisterMonitor", "SetDiscoveryFilter", "StartDiscovery"].contains($0) }
            == ["RegisterMonitor", "SetDiscoveryFilter", "StartDiscovery"], "\(order)")
        #expect(try await registeredPatterns(rig) == [MonitorPattern.nothing.content])

        try await rig.addDevice("C0:FF:EE:00:00:01", manufacturer: [BlueZScannerTests.ibeacon])
        _ = try await scanner.sightings.nextMatching(within: .seconds(20)) { $0.address.description == "C0:FF:EE:00:00:01" }
        try await clock.waitForSleepers(2)
        clock.advance(by: .seconds(30))
        try await Task.sleep(for: .milliseconds(300))
        #expect(try await rig.calls("StartDiscovery").count == 1)
        #expect(await scanner.cycles.count == 0)

        await scanner.stop()
        #expect(try await rig.calls("StopDiscovery").count >= 2)
        #expect(try await rig.calls("UnregisterMonitor", on: "/").count == 1)
    }

    @Test func aMonitorReleasedUnderActiveDiscoveryLeavesDiscoveryCycled() async throws {
        let rig = try await rigOfferingMonitors()
        defer { rig.stop() }
        let clock = TestClock()
        var options = options(.active)
        options.watchdog = .seconds(600)
        options.cycle = .seconds(5)
        let scanner = BlueZScanner(connection: rig.connection, options: options, clock: clock)
        try await scanner.startRunning()
        #expect(try await rig.calls("RegisterMonitor", on: "/").count == 1)
        try await rig.mock.control(rig.connection, interface: "io.waymark.BlueZMock", "ReleaseMonitors", [.string("hci0")])
        try await withDeadline(.seconds(20), "discovery restarted without the monitor") {
            while try await rig.calls("StartDiscovery").count < 2 { try await Task.sleep(for: .milliseconds(20)) }
        }
        try await clock.waitForSleepers(3)
        clock.advance(by: .seconds(5))
        try await withDeadline(.seconds(20), "a discovery cycle") {
            while await scanner.cycles.count < 1 { try await Task.sleep(for: .milliseconds(5)) }
        }
        #expect(await scanner.reception?.mode == .active)
        #expect(await scanner.state == .scanning)
        await scanner.stop()
    }

    @Test func theMonitorCarriesThePatternsAndNoRSSIThresholds() async throws {
        let rig = try await rigOfferingMonitors()
        defer { rig.stop() }
        var options = options(.passive)
        options.monitorPatterns = nil
        let scanner = BlueZScanner(connection: rig.connection, options: options, clock: ContinuousClock())
        try await scanner.startRunning()
        #expect(await scanner.reception == ScanReception(mode: .passive, reason: "ScanMode = passive: bluetoothd offers advertisement monitors"))

        // Read back as bluetoothd reads it: GetManagedObjects on the registered root.
        let registered = try #require(try await rig.calls("RegisterMonitor", on: "/").first?.fields?[1].array?.first?.string)
        let owner = rig.connection.uniqueName
        let reply = try await rig.connection.call(
            destination: owner, path: registered, interface: "org.freedesktop.DBus.ObjectManager", method: "GetManagedObjects")
        let monitors = try #require(reply.first?.entries).compactMap { $0.value.stringKeyed?["org.bluez.AdvertisementMonitor1"]?.stringKeyed }
        // The catch-all: 37 patterns, at most 7 to a monitor, which bluetoothd 5.66 survives.
        #expect(monitors.count == 6)
        #expect(monitors.map { $0["Patterns"]?.array?.count ?? 0 }.sorted() == [2, 7, 7, 7, 7, 7])
        #expect(monitors.allSatisfy { $0["Type"]?.string == "or_patterns" && $0.keys.allSatisfy { !$0.hasPrefix("RSSI") } })
        await scanner.stop()
    }

    /// In mgmt mode the monitor only keeps the kernel scanning with the
    /// filter off: bluetoothd is given nothing to match, so it makes no
    /// device or signal per advert. A controller that filters by the
    /// patterns itself gets the paired ones, or the channel would carry nothing.
    @Test(arguments: [false, true])
    func inMgmtModeTheMonitorWatchesForNothingUnlessTheControllerFiltersByItsPatterns(offloaded: Bool) async throws {
        let rig = try await rigOfferingMonitors()
        defer { rig.stop() }
        if offloaded {
            _ = try await rig.connection.call(
                destination: "org.bluez", path: "/org/bluez/hci0", interface: "org.freedesktop.DBus.Mock", method: "UpdateProperties",
                arguments: [.string("org.bluez.AdvertisementMonitorManager1"),
                            .vardict(["SupportedFeatures": .array(element: "s", [.string("controller-patterns")])])])
        }
        var pair: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue), 0, &pair) == 0)
        defer { close(pair[1]) }
        var options = options(.mgmt)
        let ours = pair[0]
        options.managementChannel = { ManagementSocket(adopting: ours) }
        let scanner = BlueZScanner(connection: rig.connection, options: options, clock: ContinuousClock())
        try await scanner.startRunning()
        #expect(await scanner.reception?.mode == .mgmt)

        #expect(try await registeredPatterns(rig) == (offloaded ? [Self.beacon.content] : [MonitorPattern.nothing.content]))
        #expect(try await rig.calls("StartDiscovery").isEmpty)
        await scanner.stop()
    }

    /// The contents of the patterns registered first, read back as bluetoothd reads them.
    private func registeredPatterns(_ rig: BlueZTestRig) async throws -> [[UInt8]] {
        let registered = try #require(try await rig.calls("RegisterMonitor", on: "/").first?.fields?[1].array?.first?.string)
        let reply = try await rig.connection.call(
            destination: rig.connection.uniqueName, path: registered, interface: "org.freedesktop.DBus.ObjectManager", method: "GetManagedObjects")
        return try #require(reply.first?.entries).flatMap { entry in
            (entry.value.stringKeyed?["org.bluez.AdvertisementMonitor1"]?.stringKeyed?["Patterns"]?.array ?? []).compactMap { pattern in
                pattern.fields.flatMap { fields in fields.count == 3 ? fields[2].bytes : nil }
            }
        }
    }

    @Test func bluetoothdBackWithoutMonitorsFallsBackToCycledDiscoveryAndSaysSo() async throws {
        let (started, scanner, events) = try await scanningPassively()
        var rig = started
        defer { rig.stop() }
        #expect(await scanner.reception?.mode == .passive)

        // bluetoothd restarted without --experimental.
        rig.mock.process.stop()
        try await rig.restartMock()
        try await rig.addAdapter()
        let reception = try await fallback(events)
        #expect(reception?.mode == .active)
        #expect(reception?.reason.contains("offers no advertisement monitors") == true)
        try await discoveryStarts(rig)
        try await rig.addDevice("C0:FF:EE:00:00:02", manufacturer: [BlueZScannerTests.ruuvi])
        #expect(try await scanner.sightings.nextMatching(within: .seconds(20)) { $0.address.description == "C0:FF:EE:00:00:02" }.rssi == -60)
        await scanner.stop()
    }

    @Test func aMonitorReleasedByBluetoothdFallsBackToDiscoveryWithoutAGapInScanning() async throws {
        let (rig, scanner, events) = try await scanningPassively()
        defer { rig.stop() }
        try await rig.mock.control(rig.connection, interface: "io.waymark.BlueZMock", "ReleaseMonitors", [.string("hci0")])
        #expect(try await fallback(events) == ScanReception(mode: .active, reason: "bluetoothd released the advertisement monitor; discovery is cycled"))
        try await discoveryStarts(rig)
        #expect(await scanner.state == .scanning)
        await scanner.stop()
    }

    /// bluetoothd calls Release on each monitor before it answers
    /// UnregisterMonitor; handled after the new registration began, it
    /// looked like bluetoothd dropping that one.
    @Test func theReleasesOfOurOwnUnregisteringAreNotTakenForTheNewMonitorsRelease() async throws {
        let rig = try await rigOfferingMonitors()
        defer { rig.stop() }
        let clock = TestClock()
        var options = options(.passive)
        options.watchdog = .seconds(30)
        let scanner = BlueZScanner(connection: rig.connection, options: options, clock: clock)
        let events = scanner.events
        try await scanner.startRunning()
        var restarts: [DiscoveryReason] = []
        func scanStarted() async throws {
            while true {
                switch try await events.next(within: .seconds(20), "the scan started") {
                case .discoveryStarted(_, let reason): return restarts.append(reason)
                case .reception(let reception, .passive?): Issue.record("fell back: \(reception)")
                default: continue
                }
            }
        }
        try await scanStarted()
        for _ in 1...3 {
            // Silence under a monitor: the watchdog registers it again.
            try await clock.waitForSleepers(2)
            clock.advance(by: .seconds(31))
            try await scanStarted()
        }
        #expect(restarts == [.start] + Array(repeating: .watchdogSilence, count: 3))
        #expect(try await rig.calls("RegisterMonitor", on: "/").count == 4)
        try await Task.sleep(for: .milliseconds(300))
        #expect(await scanner.reception?.mode == .passive)
        #expect(try await rig.calls("StartDiscovery").isEmpty)
        await scanner.stop()
        for await event in events {
            if case .reception(let reception, .passive?) = event { Issue.record("fell back: \(reception)") }
        }
    }

    /// A rig with hci0, whose BlueZ offers monitors (`bluetoothd --experimental`).
    private func rigOfferingMonitors() async throws -> BlueZTestRig {
        let rig = try await BlueZTestRig()
        try await rig.addAdapter()
        try await rig.offerMonitors()
        return rig
    }

    /// A rig whose BlueZ offers monitors, and a scanner started on it in passive mode.
    private func scanningPassively() async throws -> (BlueZTestRig, BlueZScanner<ContinuousClock>, AsyncStream<ScannerEvent>) {
        let rig = try await rigOfferingMonitors()
        let scanner = BlueZScanner(connection: rig.connection, options: options(.passive), clock: ContinuousClock())
        let events = scanner.events
        try await scanner.startRunning()
        return (rig, scanner, events)
    }

    /// The reception the scanner fell back to from passive mode.
    private func fallback(_ events: AsyncStream<ScannerEvent>) async throws -> ScanReception? {
        let changed = try await events.nextMatching(within: .seconds(20)) { if case .reception(_, .passive?) = $0 { true } else { false } }
        guard case .reception(let reception, _) = changed else { return nil }
        return reception
    }

    private func discoveryStarts(_ rig: BlueZTestRig) async throws {
        try await withDeadline(.seconds(20), "discovery started") {
            while try await !rig.isDiscovering() { try await Task.sleep(for: .milliseconds(20)) }
        }
    }
}
