/// Every key the config file accepts: its section, its default as text, the
/// values it takes, what it means, and how it is applied. The default config,
/// `waymark.conf(5)` and the manual's key table are made from this list, so
/// none of them can drift from what the parser does.
package struct ConfigKey: Sendable {
    package var section: String
    package var name: String
    package var defaultText: String
    /// The values it takes, as a refusal says them ("a duration of at least 1s, such as 30s, 5min or 2h").
    package var accepts: String
    package var help: String
    /// Applies `text` to the configuration; returns why it is not valid, or nil.
    package var apply: @Sendable (inout Configuration, String) -> String?

    package init(
        section: String, name: String, defaultText: String, accepts: String, help: String,
        apply: @escaping @Sendable (inout Configuration, String) -> String?
    ) {
        (self.section, self.name, self.defaultText, self.accepts, self.help, self.apply) = (section, name, defaultText, accepts, help, apply)
    }
}
