public import Vocabulary

/// A state change the daemon (or `waymark record`) captures, for replay.
public enum CaptureState: Sendable, Equatable {
    /// The runtime started or stopped: adverts and fixes count only in between.
    case running(Bool)
    /// A reconcile's conditions: the requirements missing, the intent and
    /// whether the session was authorized (nil in captures made before
    /// they were kept). Replay reconciles on them.
    case requirements(missing: [Requirement], intent: RecordingIntent?, authorized: Bool?)
    /// An event the daemon announced and queued as a sample.
    case event(Event)
    /// A radio health report over this many seconds.
    case health(seconds: Double)
    /// The location reader closed its open epoch without a line (its settle
    /// alarm rang, the receiver fell silent, the connection ended); the fix
    /// is timed this long after the last line.
    case epochClosed(afterLastLine: Double)
    /// The scan mode chosen or changed.
    case scanMode(String)
    /// Adverts are heard on this adapter (`hci0`) from now on; nil when scanning stopped.
    case adapter(String?)
    /// Scanning was started again (a cycle, the watchdog, an adapter's return).
    case discoveryRestarted
    /// The watchdog took this recovery step.
    case recoveryStep(String)
    /// A stranger's advert was shed unread while the scanner's reader was behind.
    case strangersShed
    /// logind's PrepareForSleep: `sleep`, then `wake`.
    case sleep, wake
    /// The capture was closed in order (a rotation or the daemon stopping).
    case end
    /// A state this Waymark does not know (a newer one wrote it), or an
    /// event of a kind it does not know: read, and passed over.
    case unknown(String)

    /// The record's kind and its named values, as the file keeps them.
    var fields: (kind: String, values: [(String, String)]) {
        switch self {
        case .running(let on): ("running", [("on", String(on))])
        case .requirements(let missing, let intent, let authorized):
            ("requirements", [("missing", missing.map(\.rawValue).joined(separator: " "))]
                + (intent.map { [("intent", $0.rawValue)] } ?? []) + (authorized.map { [("authorized", String($0))] } ?? []))
        case .event(let event): ("event", event.members.map { ($0.name, $0.value) } + [("event", event.kind.rawValue)])
        case .health(let seconds): ("health", [("seconds", String(seconds))])
        case .epochClosed(let seconds): ("epochClosed", [("after", String(seconds))])
        case .scanMode(let mode): ("scanMode", [("mode", mode)])
        case .adapter(let name): ("adapter", name.map { [("name", $0)] } ?? [])
        case .discoveryRestarted: ("restart", [])
        case .recoveryStep(let step): ("step", [("step", step)])
        case .strangersShed: ("shed", [])
        case .sleep: ("sleep", [])
        case .wake: ("wake", [])
        case .end: ("end", [])
        case .unknown(let kind): (kind, [])
        }
    }

    /// Read back; a value that does not parse is taken as absent.
    init(kind: String, values: [(String, String)]) {
        func value(_ name: String) -> String? { values.last { $0.0 == name }?.1 }
        switch kind {
        case "running": self = .running(value("on") == "true")
        case "requirements":
            self = .requirements(missing: (value("missing") ?? "").split(separator: " ").compactMap { Requirement(rawValue: String($0)) },
                                 intent: value("intent").flatMap(RecordingIntent.init(rawValue:)), authorized: value("authorized").map { $0 == "true" })
        case "event":
            self = Event(kind: value("event") ?? "", detail: values.map { (key: $0.0, value: $0.1) }).map(CaptureState.event) ?? .unknown("event")
        case "health": self = .health(seconds: value("seconds").flatMap(Double.init) ?? 0)
        // A settle time is under a minute; anything else read is taken as none.
        case "epochClosed": self = .epochClosed(afterLastLine: value("after").flatMap(Double.init).flatMap { $0.isFinite && $0 >= 0 && $0 <= 60 ? $0 : nil } ?? 0)
        case "scanMode": self = .scanMode(value("mode") ?? "")
        case "adapter": self = .adapter(value("name"))
        case "restart": self = .discoveryRestarted
        case "step": self = .recoveryStep(value("step") ?? "")
        case "shed": self = .strangersShed
        case "sleep": self = .sleep
        case "wake": self = .wake
        case "end": self = .end
        default: self = .unknown(kind)
        }
    }
}
