import Basics
import Control
import DBus
internal import Dispatch
import Logging
import Radio
import Synchronization

/// The running daemon's sightings (its `SightingFeed`), for `scan` and
/// `pair` beside it: what the daemon hears, with no discovery of their own.
/// A discovery started beside the daemon's scan shares the controller with
/// it: the kernel scans with the duplicate filter on for it, and each of its
/// cycles stops the controller's scan.
package final class DaemonSightings: Sendable {
    let connection: DBusConnection
    /// The daemon's unique name: only its signals are taken.
    private let owner: String
    /// How the daemon hears adverts, and why (its `ScanMode` and `ScanModeReason`).
    package let reception: (mode: String, reason: String)
    private let subscription: SignalSubscription
    /// The sightings, when no handler takes them on the connection's loop.
    let sightings: AsyncStream<Sighting>
    private let sink: AsyncStream<Sighting>.Continuation
    private let stopped = Atomic<Bool>(false)

    private init(connection: DBusConnection, owner: String, reception: (mode: String, reason: String), subscription: SignalSubscription,
                 stream: (AsyncStream<Sighting>, AsyncStream<Sighting>.Continuation)) {
        (self.connection, self.owner, self.reception, self.subscription) = (connection, owner, reception, subscription)
        (sightings, sink) = stream
    }

    /// Watches the daemon's sightings while it scans `adapter` (any, when
    /// nil) in a mode that hears every device: nil when no daemon answers,
    /// it is not scanning, it scans another adapter (which a scan of this
    /// process's own does not disturb), it scans in passive mode (its
    /// monitor then watches the paired devices only, and a monitor of this
    /// process's own disturbs nothing), or it refuses (the bus's policy
    /// admits root and the waymark group).
    static func start(on connection: DBusConnection, adapter: String?, onSighting: (@Sendable (Sighting) -> Void)?) async -> DaemonSightings? {
        guard let owner = try? await connection.owner(of: ControlInterface.busName),
              let (mode, reason, scanned) = await ControlInterface.reception(on: connection, daemon: owner), mode != ScanMode.passive.rawValue,
              adapter == nil || adapter == scanned else { return nil }
        let stream = AsyncStream.makeStream(of: Sighting.self, bufferingPolicy: .bufferingNewest(10_000))
        let deliver = onSighting ?? { stream.1.yield($0) }
        let rule = MatchRule(sender: owner, interface: ControlInterface.interface, member: SightingSignal.member, path: ControlInterface.path)
        let subscription: SignalSubscription
        do {
            subscription = try await connection.subscribe(rule) { message in
                if let sighting = SightingSignal.sighting(message, uptimeNanoseconds: DispatchTime.now().uptimeNanoseconds) { deliver(sighting) }
            }
            _ = try await connection.call(destination: owner, path: ControlInterface.path, interface: ControlInterface.interface,
                                          method: "WatchSightings", timeout: .seconds(2))
        } catch {
            Log.notice("the daemon scans in \(mode) mode but does not share its sightings (\(error)); scanning with the radio beside it")
            return nil
        }
        return DaemonSightings(connection: connection, owner: owner, reception: (mode, reason),
                               subscription: subscription, stream: stream)
    }

    /// Returns when the daemon leaves the bus (then the sightings end), or when cancelled.
    func run() async {
        let changes: AsyncStream<String?>
        do { changes = try await connection.ownerChanges(of: ControlInterface.busName) } catch {
            // Sightings stop coming if the daemon goes; the command ends at its time or signal.
            Log.warning("cannot follow the daemon on the bus (\(error)): if it stops, nothing more is heard")
            return await waitUntilCancelled()
        }
        for await now in changes where now != owner { break }
        if !Task.isCancelled { Log.warning("the daemon stopped, and with it its sightings; run the command again to scan with the radio") }
        sink.finish()
    }

    func stop() async {
        guard !stopped.exchange(true, ordering: .relaxed) else { return }
        // Best effort: the daemon forgets a watcher that leaves the bus anyway.
        _ = try? await connection.call(destination: owner, path: ControlInterface.path, interface: ControlInterface.interface,
                                       method: "UnwatchSightings", timeout: .seconds(2))
        subscription.cancel()
        sink.finish()
    }
}
