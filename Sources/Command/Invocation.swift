import Basics
/// A parsed command line: the global options, then one subcommand's options
/// and positional arguments.
package struct Invocation: Sendable {
    package var configPath = Waymark.defaultConfigPath
    /// Whether `--config` named the file (a missing one is then an error).
    package var configExplicit = false
    package var dataDirectory = Invocation.defaultDataDirectory
    package var command: String?
    package var values: [String: String] = [:]
    package var flags: Set<String> = []
    package var arguments: [String] = []
    package var wantsHelp = false

    /// Where the daemon's store lives unless `--data-dir` says otherwise.
    package static let defaultDataDirectory = "/var/lib/waymark"

    package func flag(_ name: String) -> Bool { flags.contains(name) }

    package var storePath: String { dataDirectory + "/waymark.db" }
}

extension Invocation {
    /// Parses `arguments` (without the program name) against `commands`.
    /// Global options may come before or after the subcommand.
    package init(parsing arguments: [String], commands: [CommandSpec]) throws(UsageError) {
        var rest = arguments[...]
        var spec: CommandSpec?
        while let word = rest.popFirst() {
            let (name, inline) = Self.split(word)
            func value() throws(UsageError) -> String {
                if let inline { return inline }
                guard let next = rest.popFirst() else { throw .missingValue(name) }
                return next
            }
            switch name {
            case "--config":
                configPath = try value()
                configExplicit = true
            case "--data-dir":
                dataDirectory = try value()
            case "--help", "-h":
                wantsHelp = true
            case "--version" where spec == nil:
                command = "version"
            default:
                if let spec, let option = spec.options.first(where: { $0.name == name }) {
                    if option.valueName != nil { values[name] = try value() } else { flags.insert(name) }
                } else if name.hasPrefix("-") && name != "-" {
                    throw .unknownOption(name, command: spec?.name)
                } else if spec == nil && command == nil {
                    guard let found = commands.first(where: { $0.name == word }) else { throw .unknownCommand(word) }
                    spec = found
                    command = word
                } else {
                    self.arguments.append(word)
                }
            }
        }
    }

    private static func split(_ word: String) -> (String, String?) {
        guard word.hasPrefix("--"), let equals = word.firstIndex(of: "=") else { return (word, nil) }
        return (String(word[..<equals]), String(word[word.index(after: equals)...]))
    }
}
