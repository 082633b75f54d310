package import DBus

/// What the running daemon says about itself for `waymark health`, over
/// its control interface (`Health`, an `a{sv}`). The verdict is the
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
    package var missing: [String] = []
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

    var dbus: DBusValue {
        var values: [String: DBusValue] = [
            "Ready": .bool(ready), "StoreWritable": .bool(storeWritable), "StoreProblem": .string(storeProblem),
            "Integrity": .string(integrity), "Armed": .bool(armed), "Running": .bool(running),
            "Missing": .array(element: "s", missing.map { .string($0) }), "NeedsPowerCycle": .bool(needsPowerCycle),
            "Authorized": .bool(authorized),
        ]
        if let silenceSeconds { values["SilenceSeconds"] = .double(silenceSeconds) }
        if let recoveryStep { values["RecoveryStep"] = .string(recoveryStep) }
        if let oldestQueuedSeconds { values["OldestQueuedSeconds"] = .double(oldestQueuedSeconds) }
        return .vardict(values)
    }

    /// Read from the daemon's reply; a member that is missing or of another
    /// type reads as the unhealthy value.
    package init(dbus value: DBusValue) {
        let values = value.stringKeyed ?? [:]
        ready = values["Ready"]?.bool ?? false
        storeWritable = values["StoreWritable"]?.bool ?? false
        storeProblem = values["StoreProblem"]?.string ?? ""
        integrity = values["Integrity"]?.string ?? ""
        armed = values["Armed"]?.bool ?? false
        running = values["Running"]?.bool ?? false
        missing = (values["Missing"]?.array ?? []).compactMap(\.string)
        silenceSeconds = values["SilenceSeconds"]?.double.map { $0.isFinite ? max($0, 0) : 0 }
        recoveryStep = values["RecoveryStep"]?.string
        needsPowerCycle = values["NeedsPowerCycle"]?.bool ?? false
        oldestQueuedSeconds = values["OldestQueuedSeconds"]?.double.map { $0.isFinite ? max($0, 0) : 0 }
        authorized = values["Authorized"]?.bool ?? false
    }
}
