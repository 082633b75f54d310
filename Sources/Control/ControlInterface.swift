import Basics
package import DBus
import Daemon
import Logging
import Radio
import Telemetry
import Upload
package import Vocabulary

/// The daemon's face on the system bus: `io.waymark.Gateway1` at
/// `/io/waymark/Gateway`. `waymark status` reads it while the daemon runs.
package enum ControlInterface {
    package static let path = "/io/waymark/Gateway"
    /// The daemon's well-known name on the bus is its interface's.
    package static let interface = "io.waymark.Gateway1", busName = interface

    /// The `Event` signal for an event the daemon stored: its kind, and the event as JSON.
    package static func signal(_ event: Event, on bus: DBusConnection) {
        BestEffort.write("signal \(event.kind.rawValue)") {
            try bus.emit(path: path, interface: interface, name: "Event",
                         arguments: [.string(event.kind.rawValue), .string(SampleEncoder.object(event))])
        }
    }

    static func object(_ state: DaemonState, feed: SightingFeed) -> DBusObject {
        DBusObject([
            DBusInterface(interface, methods: [
                DBusMethod("Reload") { _ in
                    state.requestReload()
                    return []
                },
                DBusMethod("Flush") { _ in
                    state.requestFlush()
                    return []
                },
                DBusMethod("Start") { _ in
                    state.request(.armed)
                    return []
                },
                DBusMethod("Stop") { _ in
                    state.request(.disarmed)
                    return []
                },
                DBusMethod("Health") { _ in
                    [await state.healthFacts().dbus]
                },
                DBusMethod("WatchSightings") { caller, _ in
                    try feed.watch(caller)
                    return []
                },
                DBusMethod("UnwatchSightings") { caller, _ in
                    feed.unwatch(caller)
                    return []
                },
            ], properties: [
                DBusProperty("Version", signature: "s") { .string(Waymark.version) },
                DBusProperty("DeviceId", signature: "s") { .string(state.deviceID) },
                DBusProperty("Requirements", signature: "as") {
                    .array(element: "s", await state.missing.map { .string($0.rawValue) })
                },
                DBusProperty("StartedAt", signature: "t") { .uint64(state.startedAt) },
                DBusProperty("Armed", signature: "b") { .bool(await state.recorder.intent == .armed) },
                DBusProperty("Running", signature: "b") { .bool(await state.recorder.running) },
                DBusProperty("ScanMode", signature: "s") { .string(await state.recorder.scanReception?.mode.rawValue ?? "") },
                DBusProperty("ScanModeReason", signature: "s") {
                    if let reception = await state.recorder.scanReception { return .string(reception.reason) }
                    return .string(await state.recorder.scanStartFailure ?? "")
                },
                DBusProperty("ScanAdapter", signature: "s") { .string(await state.recorder.scanAdapter?.rawValue ?? "") },
                DBusProperty("Trip", signature: "s") { .string(await state.recorder.currentTrip?.rawValue ?? "") },
                DBusProperty("RadioHealth", signature: "s") { .string(SampleEncoder.object(await state.recorder.healthSoFar)) },
                DBusProperty("LastFix", signature: "s") { .string(await state.recorder.lastFix.map { "{" + SampleEncoder.members(.fix($0)) + "}" } ?? "") },
                DBusProperty("QueueDepth", signature: "t") { .uint64(UInt64(BestEffort.read("the queue depth", or: 0) { try state.outbox.status().depth })) },
                DBusProperty("LastUpload", signature: "t") {
                    // Seconds since 1970; 0 before the first (or for a time before 1970).
                    .uint64(UInt64(exactly: max(0, BestEffort.read("the last upload", or: nil) { try state.outbox.status().lastSuccess } ?? 0).rounded(.down)) ?? 0)
                },
            ], signals: [DBusSignal("Event", signature: "ss"), DBusSignal(SightingSignal.member, signature: "a{sv}")]),
        ])
    }
}
