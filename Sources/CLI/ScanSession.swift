import Basics
package import BlueZ
package import Config
package import DBus
internal import Glibc
import Logging
package import Radio
import Vocabulary

/// What the CLI's `scan` and `pair` hear: the running daemon's sightings
/// where it scans in a mode that hears every device, else a scanner of
/// their own on the system bus.
package struct ScanSession {
    package let connection: DBusConnection
    /// The scanner of this process's own; nil while hearing through the daemon.
    package let scanner: BlueZScanner<ContinuousClock>?
    /// The daemon's sightings, when they are what is heard.
    let daemon: DaemonSightings?

    package enum Failure: Error, CustomStringConvertible {
        case unavailable(BluetoothState)
        case noBus(DBusError)

        package var description: String {
            switch self {
            case .unavailable(let state):
                "cannot scan: " + Requirement.missing(for: state).map(\.hint).joined(separator: "; ")
            case .noBus(let error): "cannot scan: no system bus (\(error))"
            }
        }
    }

    /// With `onSighting`, each sighting goes to it on the receiving queue as
    /// it arrives (no task hop, none dropped), and `sightings` stays empty.
    /// With `besideDaemon`, the running daemon's sightings are used where it
    /// scans the adapter this scan would (see `DaemonSightings`); else, and
    /// with no daemon scanning, the radio is scanned directly.
    package static func start(_ configuration: Configuration, besideDaemon: Bool = true,
                              onSighting: (@Sendable (Sighting) -> Void)? = nil) async throws -> ScanSession {
        let connection: DBusConnection
        do { connection = try await DBusConnection.system() } catch { throw Failure.noBus(error) }
        if besideDaemon, let daemon = await DaemonSightings.start(on: connection, adapter: configuration.bluetooth.adapter, onSighting: onSighting) {
            Log.notice("scanning through the daemon, in its \(daemon.reception.mode) mode (\(daemon.reception.reason)): what it hears, with no discovery of this command's own")
            return ScanSession(connection: connection, scanner: nil, daemon: daemon)
        }
        // Cycled every second, so every device in range is listed about once a second.
        let options = configuration.bluetooth.scannerOptions(cycle: .seconds(1))
        // A scan shows everything it hears: every device is of interest, none is shed.
        let everything: (@Sendable (Sighting) -> Bool)? = onSighting.map { handler in
            { @Sendable sighting in
                handler(sighting)
                return true
            }
        }
        let scanner = BlueZScanner(connection: connection, options: options, clock: ContinuousClock(), onSighting: everything)
        try await scanner.start()
        let state = await scanner.state
        guard state == .scanning else {
            await scanner.stop()
            connection.close()
            throw Failure.unavailable(state)
        }
        if let reception = await scanner.reception {
            Log.notice("scanning in \(reception.mode.rawValue) mode (\(reception.reason))")
        }
        return ScanSession(connection: connection, scanner: scanner, daemon: nil)
    }

    package func stop() async {
        if let scanner {
            let (cycles, malformed) = (await scanner.cycles, await scanner.malformedManagementEvents)
            Log.info("scan: \(cycles.summary); \(malformed) malformed management events")
            await scanner.stop()
        }
        await daemon?.stop()
        connection.close()
    }

    /// Runs the scanner's loops, or waits for the daemon to leave, until stopped.
    private func receive() async {
        await scanner?.run()
        await daemon?.run()
    }

    /// Ends what `receive` runs, and with it the sightings.
    private func end() async {
        await scanner?.stop()
        await daemon?.stop()
    }

    /// Runs the scanner until `duration` passes (forever when nil), SIGINT
    /// or SIGTERM; for a session whose sightings go to its handler.
    package func run(for duration: Duration?) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await receive() }
            group.addTask { await Self.wait(for: duration) }
            // The time is up, or the daemon whose sightings these are stopped.
            await group.next()
            group.cancelAll()
        }
    }

    /// Hands each sighting to `body` until `duration` passes (forever when
    /// nil), SIGINT or SIGTERM; then the scanner stops, which ends its stream.
    package func forEachSighting(for duration: Duration?, _ body: (Sighting) async -> Void) async {
        guard let source = scanner?.sightings ?? daemon?.sightings else { return }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await receive() }
            group.addTask {
                await Self.wait(for: duration)
                await end()
            }
            for await sighting in source { await body(sighting) }
            group.cancelAll()
        }
    }

    /// Returns once `duration` passes (never when nil), at SIGINT or
    /// SIGTERM, or when cancelled.
    private static func wait(for duration: Duration?) async {
        await withTaskGroup(of: Void.self) { group in
            if let duration { group.addTask { try? await Task.sleep(for: duration) } }
            group.addTask { for await _ in SignalSource([SIGINT, SIGTERM]).stream { break } }
            await group.next()
            group.cancelAll()
        }
    }
}

