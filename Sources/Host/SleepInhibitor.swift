import Basics
package import DBus
internal import Glibc
import Lifecycle
import Logging

/// A logind "delay" lock on sleep: logind waits (up to its InhibitDelayMaxSec)
/// until Waymark has committed its store and closed the lock's descriptor.
/// As a service it holds the lock from start to shutdown, except while a
/// sleep it let go ahead is under way.
package actor SleepInhibitor: Service {
    let bus: DBusConnection
    /// The lock's descriptor while held; -1 while not.
    private var descriptor: Int32 = -1
    package nonisolated let name = "sleep inhibitor"

    package init(bus: DBusConnection) { self.bus = bus }

    /// Whether logind granted the lock and it is still held.
    package var holdsLock: Bool { descriptor >= 0 }

    package func start() async { await take() }

    package nonisolated func run() async {
        await waitUntilCancelled()
        await release()
    }

    /// Takes the lock, unless held. Without logind there is nothing to take.
    package func take() async {
        guard descriptor < 0 else { return }
        do {
            let reply = try await bus.call(
                destination: "org.freedesktop.login1", path: "/org/freedesktop/login1", interface: "org.freedesktop.login1.Manager",
                method: "Inhibit",
                arguments: [.string("sleep"), .string("waymark"), .string("commit recorded samples before sleep"), .string("delay")],
                timeout: .seconds(2))
            guard case .unixFD(let fd)? = reply.first else { return }
            descriptor = fd
        } catch {
            Log.debug("no sleep inhibitor: \(error)")
        }
    }

    /// Lets the pending sleep go ahead.
    package func release() {
        guard descriptor >= 0 else { return }
        close(descriptor)
        descriptor = -1
    }
}
