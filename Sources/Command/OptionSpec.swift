package struct OptionSpec: Sendable {
    package var name: String
    /// nil for a flag; otherwise the placeholder shown in help.
    package var valueName: String?
    package var help: String

    package init(name: String, valueName: String? = nil, help: String) {
        (self.name, self.valueName, self.help) = (name, valueName, help)
    }
}
