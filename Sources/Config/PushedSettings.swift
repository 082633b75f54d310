public import Session

/// The settings the fleet pushes (`GET /v1/settings`), as one overlay on the
/// local configuration. Each goes through the config file's own key in
/// `ConfigSchema`, so it meets the same checks as a value in the file; one
/// it refuses leaves the local value in force.
public struct PushedSettings: Sendable, Equatable {
    /// One of the four, and the key it overrides.
    public struct Setting: Sendable, Equatable {
        /// The backend's name (`upload_batch_size`).
        public var remote: String
        /// The config file's key (`Upload.BatchSize`).
        public var key: String
        /// The pushed value as the config file would spell it.
        public var text: String
    }

    public var settings: [Setting]

    public init(_ remote: RemoteSettings?) {
        let seconds = { (value: Double) in Self.text(.milliseconds(Int64((value * 1000).rounded()))) }
        settings = [
            remote?.uploadBatchSize.map { Setting(remote: "upload_batch_size", key: "Upload.BatchSize", text: String($0)) },
            remote?.scanWatchdog.map { Setting(remote: "scan_watchdog_s", key: "Bluetooth.ScanWatchdog", text: seconds($0)) },
            remote?.deviceExpiry.map { Setting(remote: "device_expiry_s", key: "Bluetooth.DeviceExpiry", text: seconds($0)) },
            remote?.gapThreshold.map { Setting(remote: "gap_threshold_s", key: "Recording.GapThreshold", text: seconds($0)) },
        ].compactMap { $0 }
    }

    /// The keys the fleet may set, in the order `status` lists them.
    public static let keys = ["Upload.BatchSize", "Bluetooth.ScanWatchdog", "Bluetooth.DeviceExpiry", "Recording.GapThreshold"]

    /// The value of one of `keys` in `configuration`, as the config file spells it.
    public static func value(of key: String, in configuration: Configuration) -> String {
        switch key {
        case "Upload.BatchSize": return String(configuration.upload.batchSize)
        case "Bluetooth.ScanWatchdog": return text(configuration.bluetooth.scanWatchdog)
        case "Bluetooth.DeviceExpiry": return text(configuration.bluetooth.deviceExpiry)
        case "Recording.GapThreshold": return text(configuration.recording.gapThreshold)
        default: return ""
        }
    }

    /// A duration as the config file spells it: `30s`, or `1500ms`.
    private static func text(_ duration: Duration) -> String {
        let milliseconds = duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        return milliseconds % 1000 == 0 ? "\(milliseconds / 1000)s" : "\(milliseconds)ms"
    }

    /// `local` with every pushed value the schema accepts; the keys those
    /// set, and the pushed values refused (with the schema's reason).
    public func applied(to local: Configuration) -> (configuration: Configuration, pushed: Set<String>, refused: [String]) {
        var configuration = local
        var pushed: Set<String> = []
        var refused: [String] = []
        for setting in settings {
            let parts = setting.key.split(separator: ".").map(String.init)
            guard let key = ConfigSchema.key(section: parts[0], name: parts[1]) else { continue }
            var candidate = configuration
            if let problem = key.apply(&candidate, setting.text) {
                refused.append("\(setting.remote) = \(setting.text): \(problem)")
            } else {
                configuration = candidate
                pushed.insert(setting.key)
            }
        }
        return (configuration, pushed, refused)
    }
}
