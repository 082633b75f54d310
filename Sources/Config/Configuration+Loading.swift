import Basics
import FoundationEssentials
import Glibc
import Upload

extension Configuration {
    /// Where the daemon and the CLI look when `--config` is not given.
    public static let defaultPath = Waymark.defaultConfigPath
    package static let maximumSize = 1 << 20

    /// Loads the config file. A missing file at the default path means all
    /// defaults; a missing file named by the user (`explicit`) is an error.
    public static func load(path: String = defaultPath, explicit: Bool = false) throws(ConfigError) -> Configuration {
        let bytes: [UInt8]
        do {
            bytes = try BoundedFile.read(path, limit: maximumSize)
        } catch {
            if !explicit, error == .cannotOpen(errno: ENOENT) { return Configuration() }
            let message = error == .tooLarge(limit: maximumSize) ? "the file is over 1 MiB; that is not a config file" : error.description
            throw ConfigError(file: path, line: 0, key: "", message: message)
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw ConfigError(file: path, line: 0, key: "", message: "the file is not UTF-8 text")
        }
        return try parse(text, file: path)
    }

    /// Parses config text; every problem names `file`, the line and the key.
    public static func parse(_ text: String, file: String) throws(ConfigError) -> Configuration {
        var configuration = Configuration()
        var seen: [String: Int] = [:]
        for entry in try ConfigFile(text: text, file: file).entries {
            let qualified = "\(entry.section).\(entry.key)"
            guard ConfigSchema.sections.contains(entry.section) else {
                throw ConfigError(file: file, line: entry.line, key: qualified, message: "unknown section [\(entry.section)]")
            }
            guard let key = ConfigSchema.key(section: entry.section, name: entry.key) else {
                throw ConfigError(file: file, line: entry.line, key: qualified, message: "unknown key")
            }
            if let first = seen[qualified] {
                throw ConfigError(file: file, line: entry.line, key: qualified, message: "set twice (first on line \(first))")
            }
            seen[qualified] = entry.line
            if let problem = key.apply(&configuration, entry.value) {
                throw ConfigError(file: file, line: entry.line, key: qualified, message: "\(problem), got \(entry.value.quotedForMessage)")
            }
        }
        // Keys that only make sense together.
        if configuration.upload.sinks.contains(.mqtt), configuration.mqtt.brokers.isEmpty {
            throw ConfigError(file: file, line: seen["Upload.Sinks"] ?? 0, key: "Upload.Sinks", message: "mqtt needs [MQTT] Broker")
        }
        if (configuration.mqtt.certFile == nil) != (configuration.mqtt.keyFile == nil) {
            let (set, missing) = configuration.mqtt.certFile == nil ? ("MQTT.KeyFile", "CertFile") : ("MQTT.CertFile", "KeyFile")
            throw ConfigError(file: file, line: seen[set] ?? 0, key: set, message: "needs [MQTT] \(missing) too")
        }
        return configuration
    }

    /// A commented config file holding every key at its default.
    public static var documentedDefaults: String {
        var text = "# Waymark configuration. Every key is shown with its default, commented out; man waymark.conf explains them.\n"
        for section in ConfigSchema.sections {
            text += "\n[\(section)]\n"
            for key in ConfigSchema.keys where key.section == section {
                text += "# \(key.help); takes \(key.accepts)\n#\(key.name) =" + (key.defaultText.isEmpty ? "" : " " + key.defaultText) + "\n"
            }
        }
        return text
    }
}
