import BlueZ
import Radio
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

    /// A start the bus refuses (every match rule of the connection taken)
    /// is reported and tried again after 1 s, then 2 s, on the service's
    /// clock; once the bus has room, the next start runs and says so.
    @Test func aScanThatFailsToStartIsTriedAgainOnItsLadderUntilItRuns() async throws {
        let rig = try await BlueZTestRig(policy: .matchRuleLimit(16))
        defer { rig.stop() }
        try await rig.addAdapter()
        var fillers: [SignalSubscription] = []
        while let filler = try? await rig.connection.subscribe(MatchRule(interface: "org.example.Filler\(fillers.count)"), handler: { _ in }) {
            fillers.append(filler)
        }
        let clock = TestClock()
        let (events, record) = AsyncStream.makeStream(of: ScannerEvent.self)
        let service = ScannerService(bus: rig.connection, clock: clock)
        await service.scan(.documented, sighting: { _ in true }, event: { record.yield($0) })
        let first = try await events.next(within: .seconds(10), "the first failure")
        guard case .startFailed(_, 1, .seconds(1)) = first else {
            Issue.record("\(first)")
            return
        }
        #expect(await service.reception == nil)
        #expect(await service.startFailure != nil)

        clock.advance(by: .seconds(1))
        let second = try await events.next(within: .seconds(10), "the second failure")
        guard case .startFailed(_, 2, .seconds(2)) = second else {
            Issue.record("\(second)")
            return
        }

        fillers.forEach { $0.cancel() }
        // The removals leave on the connection's loop ahead of this call: the bus has room when it answers.
        _ = try await rig.connection.call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus", method: "GetId")
        clock.advance(by: .seconds(2))
        #expect(try await events.next(within: .seconds(10), "the start") == .startRecovered(failures: 2))
        #expect(await service.reception != nil)
        #expect(await service.startFailure == nil)
        #expect(try await rig.calls("StartDiscovery").count == 1)
        await service.stop()
        #expect(try await rig.isDiscovering() == false)
    }

    /// A stop while a failed start waits for its retry ends the retries.
    @Test func aStopWhileARetryWaitsEndsTheRetries() async throws {
        let rig = try await BlueZTestRig(policy: .matchRuleLimit(3))
        defer { rig.stop() }
        try await rig.addAdapter()
        let clock = TestClock()
        let (events, record) = AsyncStream.makeStream(of: ScannerEvent.self)
        let service = ScannerService(bus: rig.connection, clock: clock)
        await service.scan(.documented, sighting: { _ in true }, event: { record.yield($0) })
        guard case .startFailed = try await events.next(within: .seconds(10), "the failure") else {
            Issue.record("no failure reported")
            return
        }
        await service.stop()
        #expect(clock.sleepers == 0, "the retry's wait was cancelled")
        clock.advance(by: .seconds(60))
        #expect(await service.reception == nil)
        #expect(await service.startFailure == nil)
    }

    /// The bus refuses the subscription to device changes, the last a start
    /// makes (dbus-daemon's match-rule limit): the start fails, the service
    /// keeps no scanner, nothing claims to scan, and the failure says why.
    @Test func aDeviceSubscriptionTheBusRefusesFailsTheStart() async throws {
        let rig = try await BlueZTestRig(policy: .matchRuleLimit(3))
        defer { rig.stop() }
        try await rig.addAdapter()
        let scanner = BlueZScanner(connection: rig.connection, options: .documented, clock: ContinuousClock())
        await #expect(throws: DBusError.self) { try await scanner.start() }

        let service = ScannerService(bus: rig.connection, clock: TestClock())
        await service.scan(.documented, sighting: { _ in true }, event: { _ in })
        #expect(await service.reception == nil, "no scanner is kept")
        let failure = await service.startFailure
        #expect(failure?.contains("LimitsExceeded") == true, "\(String(describing: failure))")
        await service.stop()
    }
}
