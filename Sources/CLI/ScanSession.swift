import Basics
package import BlueZ
package import Config
package import DBus
internal import Glibc
import Logging
package import Radio
import Vocabulary

/// A scanner on the system bus for the CLI's `scan` and `pair`.
package struct ScanSession {
    package let connection: DBusConnection
    package let scanner: BlueZScanner<ContinuousClock>

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

    /// With `onSighting`, each sighting goes to it on the scanner's queue as
    /// it arrives (no task hop, none dropped), and `sightings` stays empty.
    package static func start(_ configuration: Configuration, onSighting: (@Sendable (Sighting) -> Void)? = nil) async throws -> ScanSession {
        let connection: DBusConnection
        do { connection = try await DBusConnection.system() } catch { throw Failure.noBus(error) }
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
        return ScanSession(connection: connection, scanner: scanner)
    }

    package func stop() async {
        let (cycles, malformed) = (await scanner.cycles, await scanner.malformedManagementEvents)
        Log.info("scan: \(cycles.summary); \(malformed) malformed management events")
        await scanner.stop()
        connection.close()
    }

    /// Runs the scanner until `duration` passes (forever when nil), SIGINT
    /// or SIGTERM; for a session whose sightings go to its handler.
    package func run(for duration: Duration?) async {
        let scanner = scanner
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await scanner.run() }
            await Self.wait(for: duration)
            group.cancelAll()
        }
    }

    /// Hands each sighting to `body` until `duration` passes (forever when
    /// nil), SIGINT or SIGTERM; then the scanner stops, which ends its stream.
    package func forEachSighting(for duration: Duration?, _ body: (Sighting) async -> Void) async {
        let (source, scanner) = (scanner.sightings, scanner)
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await scanner.run() }
            group.addTask {
                await Self.wait(for: duration)
                await scanner.stop()
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

