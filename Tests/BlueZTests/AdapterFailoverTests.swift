import BlueZ
import DBus
import Foundation
import PeerHarness
import Radio
import Testing
import Vocabulary

/// With no adapter named, the scanner uses the best one and moves to another
/// when it fails: against python-dbusmock's BlueZ with two adapters.
@Suite(.serialized)
struct AdapterFailoverTests {
    private func rig() async throws -> BlueZTestRig {
        let rig = try await BlueZTestRig()
        try await rig.addAdapter()
        try await rig.mock.control(rig.connection, "AddAdapter", [.string("hci1"), .string("dongle")])
        return rig
    }

    /// A scanner in active mode on a test clock, with the documented options.
    private func activeScanner(on rig: BlueZTestRig) -> (BlueZScanner<TestClock>, TestClock, ScannerOptions) {
        let clock = TestClock()
        var options = ScannerOptions.documented
        options.mode = .active
        return (BlueZScanner(connection: rig.connection, options: options, clock: clock), clock, options)
    }

    @Test func anAdapterPoweredOffAndNotBackIsLeftForAnotherWithinTheDelay() async throws {
        let rig = try await rig()
        defer { rig.stop() }
        let (scanner, clock, options) = activeScanner(on: rig)
        let events = scanner.events
        try await scanner.startRunning()
        #expect(try await rig.calls("StartDiscovery", on: "/org/bluez/hci0").count == 1)

        try await rig.setPowered(false)
        try await withDeadline(.seconds(20), "powered off seen") { while await scanner.state != .poweredOff { try await Task.sleep(for: .milliseconds(10)) } }
        #expect(try await rig.calls("StartDiscovery", on: "/org/bluez/hci1").isEmpty)
        clock.advance(by: options.failoverDelay)
        let failover = try await events.nextMatching(within: .seconds(20)) { if case .adapterFailover = $0 { true } else { false } }
        #expect(failover == .adapterFailover(from: "hci0", to: "hci1"))
        try await withDeadline(.seconds(20), "scanning on hci1") { while await scanner.state != .scanning { try await Task.sleep(for: .milliseconds(10)) } }
        #expect(try await rig.calls("StartDiscovery", on: "/org/bluez/hci1").count == 1)

        // Only the adapter in use is heard: hci0's devices are another scan's.
        try await rig.addDevice("C0:FF:EE:00:00:01", manufacturer: [BlueZScannerTests.ruuvi])
        try await rig.mock.control(rig.connection, interface: "io.waymark.BlueZMock", "AddAdvertisingDevice", [
            .string("hci1"), .string("C0:FF:EE:00:00:02"), .string("tag"),
            .dictionary(key: "q", value: "v", [BlueZScannerTests.ruuvi]), .dictionary(key: "s", value: "v", []), .int16(-60),
        ])
        #expect(try await scanner.sightings.next(within: .seconds(20), "a sighting on hci1").address.description == "C0:FF:EE:00:00:02")
        await scanner.stop()
    }

    /// The bus sends the scanner the device changes of the adapters it
    /// uses, not every adapter's: another client's discovery on a second
    /// adapter costs it nothing. Its subscription to every device's,
    /// made before an adapter is chosen, goes. After a failover the new
    /// adapter's are added (the old adapter's stays, muted: dbus-daemon
    /// could take the wrong one when asked to remove it). As dbus-daemon
    /// itself lists the scanner's match rules.
    @Test func theBusSendsTheScannerOnlyTheDeviceChangesOfTheAdaptersItUses() async throws {
        let rig = try await rig()
        defer { rig.stop() }
        let (scanner, clock, options) = activeScanner(on: rig)
        try await scanner.startRunning()
        // The rule without a namespace is removed a moment after the adapter's is in place.
        try await withDeadline(.seconds(20), "hci0's rule alone") { while try await deviceRules(rig) != ["/org/bluez/hci0"] { try await Task.sleep(for: .milliseconds(10)) } }

        try await rig.setPowered(false)
        try await withDeadline(.seconds(20), "powered off seen") { while await scanner.state != .poweredOff { try await Task.sleep(for: .milliseconds(10)) } }
        clock.advance(by: options.failoverDelay)
        try await withDeadline(.seconds(20), "scanning on hci1") { while await (scanner.adapterName, scanner.state) != ("hci1", .scanning) { try await Task.sleep(for: .milliseconds(10)) } }
        #expect(try await deviceRules(rig) == ["/org/bluez/hci0", "/org/bluez/hci1"])
        await scanner.stop()
        try await withDeadline(.seconds(20), "every rule removed") { while try await !deviceRules(rig).isEmpty { try await Task.sleep(for: .milliseconds(10)) } }
    }

    /// The path namespaces of the connection's match rules for Device1
    /// changes ("-" for a rule without one), from dbus-daemon's statistics interface.
    private func deviceRules(_ rig: BlueZTestRig) async throws -> [String] {
        let reply = try await rig.connection.call(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus.Debug.Stats",
            method: "GetAllMatchRules")
        let rules = reply.first?.stringKeyed?[rig.connection.uniqueName]?.array?.compactMap(\.string) ?? []
        return rules.filter { $0.contains("arg0='org.bluez.Device1'") }.map { rule in
            rule.range(of: #"path_namespace='[^']*'"#, options: .regularExpression).map { String(rule[$0].dropFirst(16).dropLast()) } ?? "-"
        }.sorted()
    }

    @Test func theBestAdapterIsPoweredThenRankedThenFirst() async throws {
        let rig = try await rig()
        defer { rig.stop() }
        var options = ScannerOptions.documented
        options.mode = .active
        // hci0 as the Pi's UART adapter: the USB dongle goes first.
        options.adapterRank = { $0 == "hci0" ? 1 : 0 }
        let scanner = BlueZScanner(connection: rig.connection, options: options, clock: ContinuousClock())
        try await scanner.startRunning()
        #expect(try await rig.calls("StartDiscovery", on: "/org/bluez/hci1").count == 1)
        #expect(try await rig.calls("StartDiscovery", on: "/org/bluez/hci0").isEmpty)
        await scanner.stop()
    }
}
