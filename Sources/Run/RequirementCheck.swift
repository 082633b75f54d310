import BlueZ
import CLI
import Config
import Control
import Daemon
import DBus
import Location
import Logging
import Vocabulary

/// Re-checks every requirement; logs a change, records it through the recorder, and announces it.
struct RequirementCheck {
    let bus: DBusConnection?
    let state: DaemonState

    func evaluate(_ configuration: Configuration, initialised: Bool = true) async {
        async let bluetooth = BluetoothProbe(adapter: configuration.bluetooth.adapter).missing(on: bus)
        // Once the reader has reported, its state decides; before, a connect probe.
        let locationMissing: [Requirement]
        if let current = await state.location {
            locationMissing = current == .unreachable ? [.location] : []
        } else {
            locationMissing = await LocationProbe(source: configuration.location.source).missing()
        }
        let sorted = (await bluetooth + locationMissing).sorted()
        let previous = await state.update(missing: sorted)
        guard sorted != previous || !initialised else { return }
        for requirement in sorted where !previous.contains(requirement) {
            Log.warning("requirement missing: \(requirement.rawValue): \(requirement.hint)")
        }
        for requirement in previous where !sorted.contains(requirement) {
            Log.notice("requirement restored: \(requirement.rawValue)")
        }
        if sorted.isEmpty { Log.notice("all requirements present") }
        await state.recorder.announce(Event(.requirementsMissing, [.missing: sorted.map(\.rawValue).joined(separator: " ")]), upload: false)
        BestEffort.write("signal the requirements") {
            try bus?.emitPropertiesChanged(path: ControlInterface.path, interface: ControlInterface.interface,
                                           changed: ["Requirements": .array(element: "s", sorted.map { .string($0.rawValue) })])
        }
    }
}
