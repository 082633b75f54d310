import Basics
package import DBus
import Lifecycle
import Logging

/// Publishes `io.waymark.Gateway1` once the state behind it is known (it
/// starts after the controller), and takes it down first at shutdown.
package struct ControlInterfaceService: Service {
    package let name = "control interface"
    let bus: DBusConnection
    /// What the interface's properties and methods read and change.
    let state: DaemonState
    /// The sightings sent to the clients that watch them.
    let feed: SightingFeed

    package init(bus: DBusConnection, state: DaemonState, feed: SightingFeed) {
        (self.bus, self.state, self.feed) = (bus, state, feed)
    }

    package func start() async {
        do {
            try bus.export(ControlInterface.object(state, feed: feed), at: ControlInterface.path)
            try await bus.requestName(ControlInterface.busName)
        } catch {
            Log.warning("control interface not available on the system bus (\(error)); install the D-Bus policy from hardware/")
        }
    }

    /// The interface answers calls on the bus's own dispatch; at shutdown,
    /// it goes before the services behind it stop.
    package func run() async {
        await waitUntilCancelled()
        bus.unexport(path: ControlInterface.path)
        feed.close()
    }
}
