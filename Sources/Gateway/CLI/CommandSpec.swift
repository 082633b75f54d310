/// One subcommand: its name, help text, options and what it runs. The CLI is
/// this table plus a small parser; there is no other dispatch.
struct CommandSpec: Sendable {
    var name: String
    var summary: String
    /// Positional arguments as shown in the usage line, e.g. `ID`.
    var arguments = ""
    var options: [OptionSpec] = []
    var run: @Sendable (Invocation) async -> ExitCode

    var usage: String {
        var line = "usage: waymark [--config FILE] [--data-dir DIR] \(name)"
        for option in options { line += " [\(option.name)\(option.valueName.map { " " + $0 } ?? "")]" }
        if !arguments.isEmpty { line += " " + arguments }
        return line
    }

    var help: String {
        var text = "\(usage)\n\n\(summary)\n"
        if !options.isEmpty {
            text += "\noptions:\n"
            for option in options {
                let head = option.name + (option.valueName.map { " " + $0 } ?? "")
                text += "  " + head.padding(to: 22) + option.help + "\n"
            }
        }
        return text
    }
}

struct OptionSpec: Sendable {
    var name: String
    /// nil for a flag; otherwise the placeholder shown in help.
    var valueName: String?
    var help: String
}

extension String {
    func padding(to width: Int) -> String {
        count >= width ? self + " " : self + String(repeating: " ", count: width - count)
    }
}
