import Advertisements
import BlueZ
import BluetoothKernel
import DBus
import Foundation
import PeerHarness
import Radio
import Testing
import Vocabulary

/// Scan modes against python-dbusmock's BlueZ: discovery cycling on the
/// injected clock, and the management channel replayed through a socketpair.
@Suite(.serialized)
struct ScanModeTests {
    /// Flags, then the iBeacon of the end-to-end tests, as the kernel passes it on.
    static let ibeaconAdvert: [UInt8] = [0x02, 0x01, 0x06, 0x1a, 0xff, 0x4c, 0x00, 0x02, 0x15, 0xe2, 0xc5, 0x6d, 0xb5, 0xdf, 0xfb, 0x48, 0xd2,
                                         0xb0, 0x60, 0xd0, 0xf5, 0xa7, 0x10, 0x96, 0xe0, 0x00, 0x64, 0x00, 0x00, 0xc5]

    @Test func discoveryIsCycledOnTheClockWhileAdvertsKeepComing() async throws {
        let (rig, clock, documented) = try await BlueZTestRig.activeOnTestClock()
        defer { rig.stop() }
        var options = documented
        options.cycle = .seconds(5)
        options.watchdog = .seconds(60)
        options.deviceExpiry = .seconds(3600)
        let scanner = BlueZScanner(connection: rig.connection, options: options, clock: clock)
        let events = scanner.events
        try await scanner.startRunning()
        #expect(await scanner.reception == ScanReception(mode: .active, reason: "ScanMode = active"))
        let starts = try await rig.calls("StartDiscovery").count

        // Busy air: a noise advertiser changes its data before every cycle.
        for round in 1...3 {
            try await rig.addDevice("C0:FF:EE:00:00:0\(round)", manufacturer: [BlueZScannerTests.ruuvi])
            try await clock.waitForSleepers(3)
            clock.advance(by: .seconds(5))
            try await withDeadline(.seconds(20), "cycle \(round)") {
                while await scanner.cycles.count < round { try await Task.sleep(for: .milliseconds(5)) }
            }
        }
        #expect(try await rig.calls("StartDiscovery").count == starts + 3)
        #expect(try await rig.isDiscovering())
        #expect(await scanner.state == .scanning)
        let cycles = await scanner.cycles
        #expect(cycles.failures == 0 && cycles.offLongest > .zero && cycles.offMean <= cycles.offLongest)

        // Cycling is not a state change: the only (re)start is the first, and
        // the Discovering=false each stop causes is not taken for BlueZ stopping.
        await scanner.stop()
        var starts2: [DiscoveryReason] = []
        for await event in events { if case .discoveryStarted(_, let reason) = event { starts2.append(reason) } }
        #expect(starts2 == [.start])
    }

    @Test func inMgmtModeAdvertsComeFromTheManagementChannelAndALostChannelFallsBackToDBus() async throws {
        let rig = try await BlueZTestRig()
        defer { rig.stop() }
        try await rig.addAdapter()
        let (scanner, kernel) = try Self.managementScanner(on: rig)
        let events = scanner.events
        let sightings = scanner.sightings
        try await scanner.startRunning()
        #expect(await scanner.reception?.mode == .mgmt)

        func send(_ address: UInt64, index: UInt16 = 0, _ bytes: [UInt8]? = nil) {
            let event = bytes ?? DeviceFound(address: address, addressType: 1, rssi: -70, flags: 0, data: Self.ibeaconAdvert)
                .encoded(index: index)
            _ = event.withUnsafeBytes { write(kernel, $0.baseAddress, $0.count) }
        }
        send(0x00AA_0100_0000)
        let first = try await sightings.next(within: .seconds(20), "a sighting from the management channel")
        #expect(first.address == BluetoothAddress(value: 0x00AA_0100_0000, kind: .public) && first.rssi == -70)
        #expect(AdvertisementDecoder.decode(companyID: 0x004C, first.manufacturerData[0x004C] ?? []).identity?.description
            == "ibeacon:e2c56db5-dffb-48d2-b060-d0f5a71096e0:100:0")

        // Another controller's advert, a malformed event, and a D-Bus device
        // update are all passed over; the next sighting is the next good one.
        send(0x00AA_0100_0001, index: 1)
        send(0, [0x12, 0x00, 0x00, 0x00, 0x03, 0x00, 0x01, 0x02, 0x03])
        try await rig.addDevice("C0:FF:EE:00:00:05", manufacturer: [BlueZScannerTests.ruuvi])
        try await Task.sleep(for: .milliseconds(200))
        send(0x00AA_0100_0002)
        #expect(try await sightings.next(within: .seconds(20), "the next good advert").address.description == "00:AA:01:00:00:02")
        #expect(await scanner.malformedManagementEvents == 1)

        // The channel closes while running: adverts come over D-Bus, scanning goes on.
        close(kernel)
        let fallback = try await events.nextMatching(within: .seconds(20)) { if case .reception(_, .mgmt?) = $0 { true } else { false } }
        guard case .reception(let reception, _) = fallback else { return }
        #expect(reception.mode == .active && reception.reason.contains("closed while running"))
        try await rig.advertise("C0:FF:EE:00:00:05", manufacturer: [BlueZScannerTests.ruuvi], rssi: -40)
        let overDBus = try await sightings.nextMatching(within: .seconds(20)) { $0.address.description == "C0:FF:EE:00:00:05" }
        #expect(overDBus.rssi == -40)
        #expect(await scanner.state == .scanning)
        await scanner.stop()
    }

    @Test func autoFallsBackToActiveWithTheReasonWhenTheChannelIsRefused() async throws {
        let rig = try await BlueZTestRig()
        defer { rig.stop() }
        try await rig.addAdapter()
        var options = ScannerOptions.documented
        options.managementChannel = { () throws(ManagementSocketError) in throw .notPermitted }
        let scanner = BlueZScanner(connection: rig.connection, options: options, clock: ContinuousClock())
        try await scanner.startRunning()
        let reception = try #require(await scanner.reception)
        #expect(reception.mode == .active)
        #expect(reception.reason == "ScanMode = auto, but \(ManagementSocketError.notPermitted) and bluetoothd offers no advertisement monitors (it needs --experimental); adverts come over D-Bus")
        try await rig.addDevice("C0:FF:EE:00:00:06", manufacturer: [BlueZScannerTests.ruuvi])
        #expect(try await scanner.sightings.next(within: .seconds(20), "a D-Bus sighting").address.description == "C0:FF:EE:00:00:06")
        await scanner.stop()
    }
}

extension ScanModeTests {
    /// A scanner in mgmt mode whose management channel is one end of a
    /// socketpair; the other end, returned, plays the kernel.
    static func managementScanner(on rig: BlueZTestRig) throws -> (BlueZScanner<ContinuousClock>, kernel: Int32) {
        var pair: [Int32] = [0, 0]
        try #require(socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue), 0, &pair) == 0)
        let ours = pair[0]
        var options = ScannerOptions.documented
        options.mode = .mgmt
        options.managementChannel = { ManagementSocket(adopting: ours) }
        return (BlueZScanner(connection: rig.connection, options: options, clock: ContinuousClock()), pair[1])
    }

    /// An advert the kernel reports as DEVICE_FOUND and again as
    /// ADV_MONITOR_DEVICE_FOUND (a monitor's first match while another
    /// client discovers) is one sighting. An advert repeated exactly as the
    /// same kind of event is an advert of its own.
    @Test func anAdvertTheKernelReportsBothToTheMonitorAndToDiscoveryIsOneSighting() async throws {
        let rig = try await BlueZTestRig()
        defer { rig.stop() }
        try await rig.addAdapter()
        let (scanner, kernel) = try Self.managementScanner(on: rig)
        defer { close(kernel) }
        let sightings = scanner.sightings
        try await scanner.startRunning()
        func send(_ address: UInt64, rssi: Int8, monitor: Bool) {
            let event = DeviceFound(address: address, addressType: 1, rssi: rssi, flags: 0, data: Self.ibeaconAdvert).encoded(index: 0, monitorHandle: monitor ? 0 : nil)
            _ = event.withUnsafeBytes { write(kernel, $0.baseAddress, $0.count) }
        }
        let car: UInt64 = 0x00AA_0100_0000, other: UInt64 = 0x00AA_0100_0009
        send(car, rssi: -70, monitor: true)
        send(car, rssi: -70, monitor: false)
        send(car, rssi: -71, monitor: false)
        send(car, rssi: -71, monitor: true)
        send(car, rssi: -71, monitor: true)
        send(other, rssi: -80, monitor: false)
        var heard: [String] = []
        while heard.last?.hasPrefix("00:AA:01:00:00:09") != true {
            let sighting = try await sightings.next(within: .seconds(20), "the sightings after \(heard)")
            heard.append("\(sighting.address) \(sighting.rssi ?? 0)")
        }
        #expect(heard == ["00:AA:01:00:00:00 -70", "00:AA:01:00:00:00 -71", "00:AA:01:00:00:00 -71", "00:AA:01:00:00:09 -80"])
        await scanner.stop()
    }
}
