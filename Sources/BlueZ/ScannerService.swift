package import DBus
import Lifecycle
import Logging

/// BlueZ scanning, for as long as the recorder wants it: `scan` starts a
/// scanner, `stop` ends it, and `run` runs each scanner's loops and hands its
/// events to the handler given with it. Without a system bus there is nothing to scan with.
package actor ScannerService: Service {
    package nonisolated let name = "scanner"
    package let bus: DBusConnection?
    private var scanner: BlueZScanner<ContinuousClock>?
    private let generations: AsyncStream<(BlueZScanner<ContinuousClock>, @Sendable (ScannerEvent) async -> Void)>
    private let nextGeneration: AsyncStream<(BlueZScanner<ContinuousClock>, @Sendable (ScannerEvent) async -> Void)>.Continuation

    package init(bus: DBusConnection?) {
        self.bus = bus
        (generations, nextGeneration) = AsyncStream.makeStream()
    }

    /// Starts scanning with `options`; sightings go to `sighting` on the
    /// scanner's own queue (it says whether the device is of interest; see
    /// `BlueZScanner.init`), events to `event` in order.
    package func scan(_ options: ScannerOptions, sighting: @escaping @Sendable (Sighting) -> Bool, event: @escaping @Sendable (ScannerEvent) async -> Void) async {
        guard let bus, scanner == nil else { return }
        let scanner = BlueZScanner(connection: bus, options: options, clock: ContinuousClock(), onSighting: sighting)
        do { try await scanner.start() } catch { Log.warning("recording: scanner: \(error)") }
        // Run only once started: a scanner's loops need its subscriptions.
        nextGeneration.yield((scanner, event))
        self.scanner = scanner
    }

    package func stop() async {
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
