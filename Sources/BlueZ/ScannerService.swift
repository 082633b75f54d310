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
package actor ScannerService: Service {
    package nonisolated let name = "scanner"
    package let bus: DBusConnection?
    private var scanner: BlueZScanner<ContinuousClock>?
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

    package init(bus: DBusConnection?, kernelMonitors: KernelMonitors? = nil, step: (@Sendable (Step) async -> Void)? = nil) {
        self.bus = bus
        self.kernelMonitors = kernelMonitors
        self.step = step
        (generations, nextGeneration) = AsyncStream.makeStream()
    }

    /// Starts scanning with `options`, unless a scanner runs already;
    /// sightings go to `sighting` on the scanner's own queue (it says whether
    /// the device is of interest; see `BlueZScanner.init`), events to `event` in order.
    package func scan(_ options: ScannerOptions, sighting: @escaping @Sendable (Sighting) -> Bool, event: @escaping @Sendable (ScannerEvent) async -> Void) async {
        await inTurn("scan") { service in await service.startScanner(options, sighting: sighting, event: event) }
    }

    package func stop() async {
        await inTurn("stop") { service in await service.stopScanner() }
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

    private func startScanner(_ options: ScannerOptions, sighting: @escaping @Sendable (Sighting) -> Bool, event: @escaping @Sendable (ScannerEvent) async -> Void) async {
        guard let bus, scanner == nil else { return }
        var options = options
        if options.kernelMonitors != nil, let kernelMonitors { options.kernelMonitors = kernelMonitors }
        let scanner = BlueZScanner(connection: bus, options: options, clock: ContinuousClock(), onSighting: sighting)
        await step?(.starting)
        do {
            try await scanner.start()
        } catch {
            // Not kept: the next `scan` (the recorder's next reconcile) makes a new one.
            Log.error("recording: scanning did not start: \(error); the next scan tries again")
            return
        }
        // Run only once started: a scanner's loops need its subscriptions.
        nextGeneration.yield((scanner, event))
        self.scanner = scanner
    }

    private func stopScanner() async {
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
