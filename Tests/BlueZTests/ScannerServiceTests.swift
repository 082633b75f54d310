import BlueZ
import DBus
import PeerHarness
import Synchronization
import Testing

/// `scan` and `stop` interleaved at the one await that matters, the
/// scanner's start, against python-dbusmock's BlueZ.
@Suite(.serialized)
struct ScannerServiceTests {
    /// Holds every start until `open`.
    actor Gate {
        private var isOpen = false
        private var waiting: [CheckedContinuation<Void, Never>] = []

        func wait() async {
            guard !isOpen else { return }
            await withCheckedContinuation { waiting.append($0) }
        }

        func open() {
            isOpen = true
            waiting.forEach { $0.resume() }
            waiting = []
        }
    }

    /// A service whose starts wait at the gate, and the steps it took.
    static func heldService(_ rig: BlueZTestRig) -> (ScannerService, AsyncStream<ScannerService.Step>, AsyncStream<ScannerService.Step>.Continuation, Gate) {
        let gate = Gate()
        let (steps, record) = AsyncStream.makeStream(of: ScannerService.Step.self)
        let service = ScannerService(bus: rig.connection) { step in
            record.yield(step)
            if step == .starting { await gate.wait() }
        }
        return (service, steps, record, gate)
    }

    static func scan(_ service: ScannerService) -> Task<Void, Never> {
        Task { await service.scan(.documented, sighting: { _ in true }, event: { _ in }) }
    }

    /// A scan, once it has taken its turn and is held in its start.
    static func heldScan(_ service: ScannerService, _ steps: AsyncStream<ScannerService.Step>) async throws -> Task<Void, Never> {
        let scan = Self.scan(service)
        #expect(try await steps.next(within: .seconds(10), "the scan's turn") == .called("scan"))
        #expect(try await steps.next(within: .seconds(10), "the start") == .starting)
        return scan
    }

    @Test func twoScansCalledWhileTheFirstStartsMakeOneScanner() async throws {
        let rig = try await BlueZTestRig()
        defer { rig.stop() }
        try await rig.addAdapter()
        let (service, steps, record, gate) = Self.heldService(rig)

        let first = try await Self.heldScan(service, steps)
        let second = Self.scan(service)
        #expect(try await steps.next(within: .seconds(10), "the second scan's turn") == .called("scan"))
        await gate.open()
        await first.value
        await second.value
        record.finish()

        var later: [ScannerService.Step] = []
        for await step in steps { later.append(step) }
        #expect(later.isEmpty, "the second scan found the first scanner and started none: \(later)")
        #expect(try await rig.calls("StartDiscovery").count == 1)
        #expect(await service.reception != nil)
        await service.stop()
    }

    @Test func aStopCalledWhileAScanStartsStopsItOnceStarted() async throws {
        let rig = try await BlueZTestRig()
        defer { rig.stop() }
        try await rig.addAdapter()
        let (service, steps, record, gate) = Self.heldService(rig)

        let scan = try await Self.heldScan(service, steps)
        let stop = Task { await service.stop() }
        #expect(try await steps.next(within: .seconds(10), "the stop's turn") == .called("stop"))
        await gate.open()
        await scan.value
        await stop.value
        record.finish()

        #expect(await service.reception == nil, "no scanner is left")
        #expect(try await rig.calls("StartDiscovery").count == 1)
        #expect(try await rig.calls("StopDiscovery").count >= 1)
        #expect(try await rig.isDiscovering() == false, "discovery stopped, as the recorder believes")
    }

    @Test func aScanAfterAStopStartsAFreshScanner() async throws {
        let rig = try await BlueZTestRig()
        defer { rig.stop() }
        try await rig.addAdapter()
        let service = ScannerService(bus: rig.connection)
        await service.scan(.documented, sighting: { _ in true }, event: { _ in })
        await service.stop()
        await service.scan(.documented, sighting: { _ in true }, event: { _ in })
        #expect(await service.reception != nil)
        #expect(try await rig.calls("StartDiscovery").count == 2)
        await service.stop()
        #expect(try await rig.isDiscovering() == false)
    }

    /// The bus refuses the subscription to device changes, the last a start
    /// makes (dbus-daemon's match-rule limit): the start fails, the service
    /// keeps no scanner, and nothing claims to scan.
    @Test func aDeviceSubscriptionTheBusRefusesFailsTheStart() async throws {
        let rig = try await BlueZTestRig(policy: .matchRuleLimit(3))
        defer { rig.stop() }
        try await rig.addAdapter()
        let scanner = BlueZScanner(connection: rig.connection, options: .documented, clock: ContinuousClock())
        await #expect(throws: DBusError.self) { try await scanner.start() }

        let service = ScannerService(bus: rig.connection)
        await service.scan(.documented, sighting: { _ in true }, event: { _ in })
        #expect(await service.reception == nil, "no scanner is kept, so the next scan tries again")
    }
}
