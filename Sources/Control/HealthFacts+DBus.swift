package import DBus
package import Vocabulary

/// `HealthFacts` as the control interface's `Health` property carries it.
extension HealthFacts {
    package var dbus: DBusValue {
        var values: [String: DBusValue] = [
            "Ready": .bool(ready), "StoreWritable": .bool(storeWritable), "StoreProblem": .string(storeProblem),
            "Integrity": .string(integrity), "Armed": .bool(armed), "Running": .bool(running),
            "Missing": .array(element: "s", missing.map { .string($0.rawValue) }), "NeedsPowerCycle": .bool(needsPowerCycle),
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
        self.init()
        let values = value.stringKeyed ?? [:]
        ready = values["Ready"]?.bool ?? false
        storeWritable = values["StoreWritable"]?.bool ?? false
        storeProblem = values["StoreProblem"]?.string ?? ""
        integrity = values["Integrity"]?.string ?? ""
        armed = values["Armed"]?.bool ?? false
        running = values["Running"]?.bool ?? false
        // A requirement this command does not know (a newer daemon's) is left out.
        missing = (values["Missing"]?.array ?? []).compactMap { $0.string.flatMap(Requirement.init(rawValue:)) }
        silenceSeconds = values["SilenceSeconds"]?.double.map { $0.isFinite ? max($0, 0) : 0 }
        recoveryStep = values["RecoveryStep"]?.string
        needsPowerCycle = values["NeedsPowerCycle"]?.bool ?? false
        oldestQueuedSeconds = values["OldestQueuedSeconds"]?.double.map { $0.isFinite ? max($0, 0) : 0 }
        authorized = values["Authorized"]?.bool ?? false
    }
}
