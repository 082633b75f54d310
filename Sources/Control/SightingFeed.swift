package import DBus
import Logging
package import Radio
import Synchronization

/// The daemon's sightings, for `waymark scan` and `pair` beside it: a client
/// that calls `WatchSightings` gets every sighting the scanner delivers, as
/// a `Sighting` signal addressed to it alone, until it calls
/// `UnwatchSightings` or leaves the bus. So a field tester sees what the
/// daemon hears without starting a discovery of their own, which would
/// change what the controller hears (its duplicate filter, scan gaps).
///
/// With nobody watching, a sighting costs one atomic load.
package final class SightingFeed: Sendable {
    /// Beyond these, `WatchSightings` is refused: each watcher costs a message per advert.
    package static let maxWatchers = 4
    private let bus: DBusConnection
    /// Each watcher's unique name, and the task that waits for it to leave the bus.
    private let watchers = Mutex<[String: Task<Void, Never>]>([:])
    private let anyone = Atomic<Bool>(false)

    package init(bus: DBusConnection) { self.bus = bus }

    /// Called on the scanner's queue for every sighting: quick, never blocking.
    package func publish(_ sighting: Sighting) {
        guard anyone.load(ordering: .relaxed) else { return }
        let names = watchers.withLock { Array($0.keys) }
        let arguments = SightingSignal.arguments(sighting)
        for name in names {
            // A watcher gone since is removed by its task; a message lost to it is its loss alone.
            try? bus.emit(path: ControlInterface.path, interface: ControlInterface.interface, name: SightingSignal.member, arguments: arguments, to: name)
        }
    }

    package func watch(_ caller: String) throws(DBusError) {
        let added: Bool = try watchers.withLock { (watchers) throws(DBusError) -> Bool in
            guard watchers[caller] == nil else { return false }
            guard watchers.count < Self.maxWatchers else {
                throw .remote(.limitsExceeded, message: "\(Self.maxWatchers) clients watch the sightings already")
            }
            watchers[caller] = Task { [bus] in
                do {
                    // The first owner is the current one: a caller gone already ends this at once.
                    for await owner in try await bus.ownerChanges(of: caller) where owner == nil { break }
                } catch {
                    // Not told when it leaves: it is dropped now rather than fed after it has gone.
                    Log.warning("control: cannot follow \(caller) on the bus (\(error)); it gets no sightings")
                }
                guard !Task.isCancelled else { return }
                self.unwatch(caller, left: true)
            }
            anyone.store(true, ordering: .relaxed)
            return true
        }
        if added { Log.info("control: \(caller) watches the sightings") }
    }

    package func unwatch(_ caller: String, left: Bool = false) {
        let task: Task<Void, Never>? = watchers.withLock { watchers in
            defer { anyone.store(!watchers.isEmpty, ordering: .relaxed) }
            return watchers.removeValue(forKey: caller)
        }
        guard let task else { return }
        if !left { task.cancel() }
        Log.info("control: \(caller) \(left ? "left the bus" : "stopped watching the sightings")")
    }

    /// Every watcher's wait ends (at shutdown).
    package func close() {
        let tasks = watchers.withLock { watchers in
            defer { watchers.removeAll() }
            return Array(watchers.values)
        }
        anyone.store(false, ordering: .relaxed)
        tasks.forEach { $0.cancel() }
    }
}
