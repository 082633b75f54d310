import Basics
import Lifecycle

/// Tells systemd the daemon is ready (it starts last), pings its watchdog
/// at half of `WATCHDOG_USEC` where one is set (the one timer systemd asks
/// for), and says it is stopping (it stops first).
package struct SystemdNotifierService: Service {
    package let name = "systemd notifier"
    let watchdogMicroseconds: UInt64?
    /// Where systemd listens; nil when not started by it.
    let socket: String?
    /// Told once systemd has been told.
    var ready: @Sendable () async -> Void = {}

    package init(watchdogMicroseconds: UInt64?, socket: String? = SystemdNotifier.notifySocket, ready: @escaping @Sendable () async -> Void = {}) {
        (self.watchdogMicroseconds, self.socket, self.ready) = (watchdogMicroseconds, socket, ready)
    }

    package func start() async {
        SystemdNotifier.notify("READY=1\nSTATUS=running", to: socket)
        await ready()
    }

    package func run() async {
        defer { SystemdNotifier.notify("STOPPING=1", to: socket) }
        guard let watchdogMicroseconds, watchdogMicroseconds > 0 else { return await waitUntilCancelled() }
        let period = Duration.microseconds(Int64(clamping: watchdogMicroseconds / 2))
        while !Task.isCancelled {
            SystemdNotifier.notify("WATCHDOG=1", to: socket)
            guard await ContinuousClock().pause(for: period) else { break }
        }
    }
}
