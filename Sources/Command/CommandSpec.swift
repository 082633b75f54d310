/// One subcommand: its name, help text, options and what it runs. The CLI is
/// this table plus a small parser; there is no other dispatch.
package struct CommandSpec: Sendable {
    package var name: String
    package var summary: String
    /// What the summary leaves out, a paragraph for `--help`, the man page and the manual; often empty.
    package var details: String
    /// Positional arguments as shown in the usage line, e.g. `ID`.
    package var arguments = ""
    package var options: [OptionSpec] = []
    package var run: @Sendable (Invocation) async -> ExitCode

    package init(
        name: String, summary: String, details: String = "", arguments: String = "", options: [OptionSpec] = [],
        run: @escaping @Sendable (Invocation) async -> ExitCode
    ) {
        (self.name, self.summary, self.details, self.arguments, self.options, self.run) = (name, summary, details, arguments, options, run)
    }

    package var usage: String {
        var line = "usage: waymark [--config FILE] [--data-dir DIR] \(name)"
        for option in options { line += option.required ? " " + option.synopsis : " [" + option.synopsis + "]" }
        if !arguments.isEmpty { line += " " + arguments }
        return line
    }

    package var help: String {
        var text = "\(usage)\n\n\(summary)\n"
        if !details.isEmpty { text += "\n\(details)\n" }
        if !options.isEmpty {
            text += "\noptions:\n"
            for option in options { text += "  " + option.synopsis.padding(to: 22) + option.help + "\n" }
        }
        return text
    }
}

extension String {
    package func padding(to width: Int) -> String {
        count >= width ? self + " " : self + String(repeating: " ", count: width - count)
    }
}
