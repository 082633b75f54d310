import BlueZ
import DBus
import Gateway
internal import Glibc
import Lifecycle
import Logging

/// A scanner on the system bus for the CLI's `scan` and `pair`.
struct ScanSession {
    let connection: DBusConnection
    let scanner: BlueZScanner<ContinuousClock>

    enum Failure: Error, CustomStringConvertible {
        case unavailable(BluetoothState)
        case noBus(DBusError)

        var description: String {
            switch self {
            case .unavailable(let state):
                "cannot scan: " + Requirement.missing(for: state).map(\.hint).joined(separator: "; ")
            case .noBus(let error): "cannot scan: no system bus (\(error))"
            }
        }
    }

    static func start(_ configuration: Configuration) async throws -> ScanSession {
        let connection: DBusConnection
        do { connection = try await DBusConnection.system() } catch { throw Failure.noBus(error) }
        // Cycled every second, so every device in range is listed about once a second.
        let options = configuration.bluetooth.scannerOptions(cycle: .seconds(1))
        let scanner = BlueZScanner(connection: connection, options: options, clock: ContinuousClock())
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

    func stop() async {
        let (cycles, malformed) = (await scanner.cycles, await scanner.malformedManagementEvents)
        Log.info("scan: \(cycles.summary); \(malformed) malformed management events")
        await scanner.stop()
        connection.close()
    }

    /// Sightings until `duration` passes (forever when nil) or SIGINT/SIGTERM.
    func sightings(for duration: Duration?) -> AsyncStream<Sighting> {
        let source = scanner.sightings
        return AsyncStream { continuation in
            let feed = Task {
                for await sighting in source { continuation.yield(sighting) }
                continuation.finish()
            }
            let stop = Task {
                guard let duration else { return }
                try? await Task.sleep(for: duration)
                continuation.finish()
            }
            let interrupt = Task {
                for await _ in SignalSource([SIGINT, SIGTERM]).stream { break }
                continuation.finish()
            }
            continuation.onTermination = { _ in
                feed.cancel()
                stop.cancel()
                interrupt.cancel()
            }
        }
    }
}

