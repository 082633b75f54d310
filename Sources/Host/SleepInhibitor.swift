import Basics
package import DBus
internal import Glibc
import Lifecycle
import Logging

/// A logind "delay" lock on sleep: logind waits (up to its InhibitDelayMaxSec)
/// until Waymark has committed its store and closed the lock's descriptor.
/// As a service it holds the lock from start to shutdown, except while a
/// sleep it let go ahead is under way. What to do is `SleepLock`'s
/// decision; this actor asks logind and closes descriptors, and feeds each
/// answer back, so overlapping takes and a release during a take are states.
package actor SleepInhibitor: Service {
    let bus: DBusConnection
    private var lock = SleepLock()
    package nonisolated let name = "sleep inhibitor"

    package init(bus: DBusConnection) { self.bus = bus }

    /// Whether logind granted the lock and it is still held.
    package var holdsLock: Bool { lock.holdsLock }

    package func start() async { await take() }

    package nonisolated func run() async {
        await waitUntilCancelled()
        await stop()
    }

    /// Takes the lock, unless held or asked for. Without logind there is nothing to take.
    package func take() async { await perform(.take) }

    /// Lets the pending sleep go ahead; a lock still being asked for is closed when it comes.
    package func release() async { await perform(.release) }

    /// Releases the lock for good: one that logind grants later is closed at once.
    package func stop() async { await perform(.stop) }

    private func perform(_ input: SleepLock.Input) async {
        for action in lock.handle(input) {
            switch action {
            case .askLogind: await perform(await askLogind())
            case .close(let descriptor): close(descriptor)
            }
        }
    }

    /// logind's `Inhibit`, as an outcome for the lock.
    private func askLogind() async -> SleepLock.Input {
        do {
            let reply = try await bus.call(
                destination: "org.freedesktop.login1", path: "/org/freedesktop/login1", interface: "org.freedesktop.login1.Manager",
                method: "Inhibit",
                arguments: [.string("sleep"), .string("waymark"), .string("commit recorded samples before sleep"), .string("delay")],
                timeout: .seconds(2))
            guard case .unixFD(let fd)? = reply.first else {
                Log.debug("no sleep inhibitor: logind answered without a descriptor")
                return .refused
            }
            return .granted(descriptor: fd)
        } catch {
            Log.debug("no sleep inhibitor: \(error)")
            return .refused
        }
    }
}
