package import DBus
import Lifecycle
import Logging
package import Radio

/// BlueZ scanning, for as long as the recorder wants it: `scan` starts a
/// scanner, `stop` ends it, and `run` runs each scanner's loops and hands its
/// events to the handler given with it. Without a system bus there is nothing to scan with.
///
/// `scan` and `stop` take effect one at a time, in the order they were
/// called: each waits for the one before it to finish, awaits included. So
/// two `scan`s never make two scanners, and a `stop` called while a start
/// is under way stops the scanner once it has started.
///
/// Whether a scanner should be started, retried or stopped is
/// `ScannerStart`'s decision: a start that fails (bluetoothd refusing a
/// call, the bus's match-rule limit) is tried again on its ladder, on
/// `clock`, and each failure reaches the event handler, so the recorder
/// says why it hears nothing. A stop cancels the retry.
package actor ScannerService: Service {
    package nonisolated let name = "scanner"
    package let bus: DBusConnection?
    private var scanner: BlueZScanner<ContinuousClock>?
    private var lifecycle = ScannerStart(ceiling: .seconds(60))
    /// What the recorder asked for with its last `scan`: what a retry starts with.
    private var wanted: ScanRequest?
    private var retry: Task<Void, Never>?
    private let clock: any Clock<Duration>
    /// Why the last start failed, while a retry is waiting; nil otherwise.
    package private(set) var startFailure: String?
    /// The last `scan` or `stop` called: the next one runs after it.
    private var previous: Task<Void, Never>?
    /// What a test sees of the order: a call taking its turn, a scanner
    /// about to start (where a test may hold it, for another call to come in).
    package enum Step: Sendable, Equatable {
        case called(String)
        case starting
    }

    private let step: (@Sendable (Step) async -> Void)?
    /// The kernel monitors of every scanner this service starts, where the
    /// options allow them: one record of handles for the process's life.
    private let kernelMonitors: KernelMonitors?
    private let generations: AsyncStream<(BlueZScanner<ContinuousClock>, @Sendable (ScannerEvent) async -> Void)>
    private let nextGeneration: AsyncStream<(BlueZScanner<ContinuousClock>, @Sendable (ScannerEvent) async -> Void)>.Continuation

    /// `clock` times the waits between failed starts.
    package init(
        bus: DBusConnection?, kernelMonitors: KernelMonitors? = nil, clock: any Clock<Duration> = ContinuousClock(),
        step: (@Sendable (Step) async -> Void)? = nil
    ) {
        self.bus = bus
        self.kernelMonitors = kernelMonitors
        self.clock = clock
        self.step = step
        (generations, nextGeneration) = AsyncStream.makeStream()
    }

    /// Starts scanning with `options`, unless a scanner runs already;
    /// sightings go to `sighting` on the scanner's own queue (it says whether
    /// the device is of interest; see `BlueZScanner.init`), events to `event` in order.
    package func scan(_ options: ScannerOptions, sighting: @escaping @Sendable (Sighting) -> Bool, event: @escaping @Sendable (ScannerEvent) async -> Void) async {
        await inTurn("scan") { service in await service.requestScan(options, sighting: sighting, event: event) }
    }

    package func stop() async {
        await inTurn("stop") { service in await service.perform(.stop) }
    }

    private func requestScan(
        _ options: ScannerOptions, sighting: @escaping @Sendable (Sighting) -> Bool, event: @escaping @Sendable (ScannerEvent) async -> Void
    ) async {
        guard bus != nil else { return }
        if lifecycle.state == .idle {
            wanted = ScanRequest(options: options, sighting: sighting, event: event)
            lifecycle = ScannerStart(ceiling: options.watchdog)
        }
        await perform(.scan)
    }

    /// Feeds `input` to the lifecycle and carries out what it decides,
    /// feeding each start's outcome back.
    private func perform(_ input: ScannerStart.Input) async {
        var inputs = [input]
        while !inputs.isEmpty {
            for action in lifecycle.handle(inputs.removeFirst()) {
                if let outcome = await carryOut(action) { inputs.append(outcome) }
            }
        }
    }

    private func carryOut(_ action: ScannerStart.Action) async -> ScannerStart.Input? {
        switch action {
        case .start:
            guard let wanted else { return .failed(reason: "nothing to scan for") }
            return await startScanner(wanted)
        case .discardFailed:
            await scanner?.stop()
            scanner = nil
        case .scheduleRetry(let wait):
            let clock = clock
            retry = Task { [weak self] in
                do { try await clock.sleep(for: wait) } catch { return }
                await self?.inTurn("retry") { service in await service.perform(.retryDue) }
            }
        case .cancelRetry:
            retry?.cancel()
            (retry, wanted, startFailure) = (nil, nil, nil)
        case .stop:
            await stopScanner()
        case .reportFailure(let reason, let failures, let wait):
            startFailure = reason
            await wanted?.event(.startFailed(reason: reason, failures: failures, retryIn: wait))
        case .reportRecovered(let failures):
            startFailure = nil
            await wanted?.event(.startRecovered(failures: failures))
        }
        return nil
    }

    /// Runs `body` after every `scan` and `stop` called before it has
    /// finished. The chain is extended before the first await, so call
    /// order on the actor is the order of effect.
    private func inTurn(_ name: String, _ body: @escaping @Sendable (ScannerService) async -> Void) async {
        let before = previous
        let turn = Task {
            await before?.value
            await body(self)
        }
        previous = turn
        await step?(.called(name))
        await turn.value
    }

    /// Makes a scanner and starts it: `started`, or `failed` with the
    /// scanner kept for `discardFailed` to release what it made.
    private func startScanner(_ request: ScanRequest) async -> ScannerStart.Input {
        guard let bus else { return .failed(reason: "no system bus") }
        var options = request.options
        if options.kernelMonitors != nil, let kernelMonitors { options.kernelMonitors = kernelMonitors }
        let scanner = BlueZScanner(connection: bus, options: options, clock: ContinuousClock(), onSighting: request.sighting)
        self.scanner = scanner
        await step?(.starting)
        do {
            try await scanner.start()
        } catch {
            return .failed(reason: "\(error)")
        }
        // Run only once started: a scanner's loops need its subscriptions.
        nextGeneration.yield((scanner, request.event))
        return .started
    }

    private func stopScanner() async {
        wanted = nil
        guard let scanner else { return }
        self.scanner = nil
        let cycles = await scanner.cycles
        Log.info("recording: scanner stopped after \(cycles.summary)")
        await scanner.stop()
    }

    /// How long the scan in progress has heard nothing; nil while not scanning.
    package var silence: Duration? { get async { await scanner?.silence } }

    /// Watchdog and expiry periods for the scan in progress.
    package func retune(watchdog: Duration, deviceExpiry: Duration) async {
        await scanner?.retune(watchdog: watchdog, deviceExpiry: deviceExpiry)
    }

    /// The scan mode in use and why; nil while not scanning.
    package var reception: ScanReception? { get async { await scanner?.reception } }

    /// The adapter scanned (`hci0`); nil while not scanning.
    package var adapter: AdapterName? { get async { await scanner?.adapterName } }

    package nonisolated func run() async {
        await withTaskCancellationHandler {
            for await (scanner, handler) in generations {
                // The scanner's loops run until it stops, which also ends its events.
                await withTaskGroup(of: Void.self) { group in
                    group.addTask { await scanner.run() }
                    for await event in scanner.events { await handler(event) }
                    group.cancelAll()
                }
            }
        } onCancel: {
            nextGeneration.finish()
        }
        await stop()
    }
}
