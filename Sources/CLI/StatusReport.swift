import Basics
import Command
import Config
import Control
import DBus
import FoundationEssentials
internal import Glibc
import Session
import Storage
import Store
import Vocabulary

/// What `waymark status` shows: from the running daemon when it is on the
/// bus, otherwise from the store.
struct StatusReport: Encodable {
    struct Daemon: Encodable {
        var running: Bool
        var startedAt: Date?
    }

    struct Store: Encodable {
        var path: String
        var exists: Bool
        var schemaVersion: Int?
        var deviceId: String?
    }

    struct Requirements: Encodable {
        var missing: [Requirement]
        /// Where the list came from: `daemon` (live) or `store` (last recorded).
        var source: String
        var asOf: Date?
    }

    struct Recording: Encodable {
        var intent: String
        var lastCollected: Date?
        /// Whether the daemon is recording now (the runtime state); nil
        /// without a daemon.
        var running: Bool?
    }

    /// How the running daemon hears adverts, and why.
    struct Scanning: Encodable {
        var mode: String
        var reason: String
        /// The adapter scanned (`hci0`); nil from a daemon that does not say.
        var adapter: String?
    }

    /// A setting the fleet may push: the value in force, and whether it
    /// comes from the local config or the fleet.
    struct Setting: Encodable {
        var key: String
        var value: String
        var source: String
    }

    var version = Waymark.version
    var config: String
    var daemon: Daemon
    var store: Store
    var session: SessionCommands.Identity?
    var recording: Recording?
    var requirements: Requirements?
    var scanning: Scanning?
    /// The watchdog's ladder ended here and no advert came since.
    var radioNeedsPowerCycleSince: Date?
    var settings: [Setting] = []

    enum CodingKeys: String, CodingKey {
        case version, config, daemon, store, session, recording, requirements, scanning, radioNeedsPowerCycleSince, settings
    }

    static func gather(_ invocation: Invocation, configuration: Configuration, store: GatewayStore?) async throws -> StatusReport {
        var report = StatusReport(
            config: invocation.configPath, daemon: Daemon(running: false), store: Store(path: invocation.storePath, exists: store != nil))
        let overlay = store.map { PushedSettings(storedIn: $0).applied(to: configuration) } ?? (configuration: configuration, pushed: [], refused: [])
        report.settings = PushedSettings.keys.map { key in
            Setting(key: key, value: PushedSettings.value(of: key, in: overlay.configuration), source: overlay.pushed.contains(key) ? "pushed" : "local")
        }
        if let store {
            report.store.schemaVersion = store.database.schemaVersion
            report.store.deviceId = try store.deviceID
            report.session = SessionCommands.Identity(try SessionStore(database: store.database).load(), now: Date().timeIntervalSince1970)
            let recordings = RecordingStore(database: store.database)
            report.recording = Recording(intent: try recordings.intent.rawValue,
                                         lastCollected: try recordings.heartbeat.map { Date(timeIntervalSince1970: $0.wall) })
            if let last = try store.lastEvent(.requirementsMissing), let detail = last.event?.detail {
                let missing = (detail[.missing] ?? "").split(separator: " ").compactMap { Requirement(rawValue: String($0)) }
                report.requirements = Requirements(missing: missing, source: "store", asOf: last.time)
            }
            report.radioNeedsPowerCycleSince = try store.radioNeedsPowerCycle()
        }
        if let live = await live() {
            report.daemon = Daemon(running: true, startedAt: live.startedAt)
            report.recording?.running = live.running
            report.requirements = Requirements(missing: live.missing, source: "daemon", asOf: Date())
            report.scanning = live.scanning
        }
        return report
    }

    /// The daemon's control interface, if a daemon is running.
    private static func live() async -> (startedAt: Date, missing: [Requirement], running: Bool, scanning: Scanning?)? {
        guard let bus = try? await DBusConnection.system() else { return nil }
        defer { bus.close() }
        guard let properties = await ControlInterface.properties(on: bus) else { return nil }
        let missing = (properties["Requirements"]?.array ?? []).compactMap { $0.string.flatMap(Requirement.init(rawValue:)) }
        let started = Date(timeIntervalSince1970: Double(properties["StartedAt"]?.int64 ?? 0))
        let mode = properties["ScanMode"]?.string ?? ""
        let adapter = properties["ScanAdapter"]?.string ?? ""
        let reason = properties["ScanModeReason"]?.string ?? ""
        // No mode but a reason: the scan did not start, and the reason says why and when it is tried again.
        let scanning = mode.isEmpty && reason.isEmpty ? nil
            : Scanning(mode: mode.isEmpty ? "not started" : mode, reason: reason, adapter: adapter.isEmpty ? nil : adapter)
        return (started, missing, properties["Running"]?.bool ?? false, scanning)
    }

    var text: String {
        var lines = ["waymark \(version)"]
        lines.append("daemon:       " + (daemon.running ? "running" + (daemon.startedAt.map { " since \($0.formatted(.iso8601))" } ?? "") : "not running"))
        if store.exists {
            lines.append("store:        \(store.path) (schema \(store.schemaVersion ?? 0))")
            lines.append("device:       \(store.deviceId ?? "")")
            if let session {
                lines.append("session:      " + (session.loggedIn ? (session.authorized ? "authorized: " : "not authorized: ") + session.text : "not logged in"))
            }
            if let recording { lines.append("recording:    \(recording.intent)" + (recording.running.map { $0 ? ", running" : ", not running" } ?? "")) }
            if let scanning { lines.append("scanning:     \(scanning.mode)\(scanning.adapter.map { " on \($0)" } ?? "") (\(scanning.reason))") }
            if let since = radioNeedsPowerCycleSince {
                lines.append("radio:        needs a power cycle since \(since.formatted(.iso8601)): no adverts after every recovery step (in a car, an ignition cycle)")
            }
        } else {
            lines.append("store:        \(store.path) (not created yet; `waymark run` creates it)")
        }
        lines.append("settings:     " + settings.map { "\($0.key) = \($0.value) (\($0.source))" }.joined(separator: ", "))
        if let requirements {
            let origin = requirements.source == "daemon" ? "" : " (last recorded\(requirements.asOf.map { " \($0.formatted(.iso8601))" } ?? ""))"
            if requirements.missing.isEmpty {
                lines.append("requirements: all present\(origin)")
            } else {
                lines.append("requirements: missing\(origin):")
                for requirement in requirements.missing { lines.append("  - \(requirement.rawValue): \(requirement.hint)") }
            }
        }
        return lines.joined(separator: "\n")
    }
}
