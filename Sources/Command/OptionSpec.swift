package struct OptionSpec: Sendable {
    package var name: String
    /// nil for a flag; otherwise the placeholder shown in help.
    package var valueName: String?
    package var help: String
    /// Shown without brackets in the usage line: the command cannot run without it.
    package var required: Bool

    package init(name: String, valueName: String? = nil, help: String, required: Bool = false) {
        (self.name, self.valueName, self.help, self.required) = (name, valueName, help, required)
    }

    /// The option as typed, with its value's placeholder: `--out FILE`.
    package var synopsis: String { name + (valueName.map { " " + $0 } ?? "") }

    /// How a shell completes the option's value; nil for a flag.
    package var completion: ValueCompletion? { valueName.map(ValueCompletion.init(placeholder:)) }
}
