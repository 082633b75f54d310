import FoundationEssentials

extension Configuration {
    /// Where the daemon and the CLI look when `--config` is not given.
    public static let defaultPath = "/etc/waymark/waymark.conf"

    /// Loads the config file. A missing file at the default path means all
    /// defaults; a missing file named by the user (`explicit`) is an error.
    public static func load(path: String = defaultPath, explicit: Bool = false) throws(ConfigError) -> Configuration {
        guard let data = FileManager.default.contents(atPath: path) else {
            if !explicit && !FileManager.default.fileExists(atPath: path) { return Configuration() }
            throw ConfigError(file: path, line: 0, key: "", message: "cannot read the file")
        }
        guard let text = String(data: data, encoding: .utf8) else {
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
                throw ConfigError(file: file, line: entry.line, key: qualified, message: "\(problem), got \(entry.value.debugDescription)")
            }
        }
        return configuration
    }

    /// A commented config file holding every key at its default.
    public static var documentedDefaults: String {
        var text = "# Waymark configuration. Every key is shown with its default, commented out.\n"
        for section in ConfigSchema.sections {
            text += "\n[\(section)]\n"
            for key in ConfigSchema.keys where key.section == section {
                text += "# \(key.help)\n#\(key.name) =" + (key.defaultText.isEmpty ? "" : " " + key.defaultText) + "\n"
            }
        }
        return text
    }
}
