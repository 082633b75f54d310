/// What the running daemon says about itself for `waymark health`, over
/// its control interface (`Health`, an `a{sv}`: see `HealthFacts+DBus`). The verdict is the
/// command's: the thresholds are its settings.
package struct HealthFacts: Sendable, Equatable, Encodable {
    /// It told systemd it is ready (every service started).
    package var ready = false
    /// A write to the store went through just now, or why not.
    package var storeWritable = false
    package var storeProblem = ""
    /// `PRAGMA quick_check`'s answer: "ok" when intact.
    package var integrity = ""
    package var armed = false
    package var running = false
    package var missing: [Requirement] = []
    /// While scanning: seconds since the last advert (or since scanning started).
    package var silenceSeconds: Double?
    /// The watchdog's last recovery step since the last advert.
    package var recoveryStep: String?
    /// The watchdog's ladder ended and no advert came since.
    package var needsPowerCycle = false
    /// Seconds since the oldest queued sample was recorded.
    package var oldestQueuedSeconds: Double?
    package var authorized = false

    package init() {}
}
