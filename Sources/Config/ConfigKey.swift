/// Every key the config file accepts: its section, its default as text, what
/// it means, and how it is applied. The README's key table and the default
/// config are generated from this list, so the three cannot drift apart.
package struct ConfigKey: Sendable {
    package var section: String
    package var name: String
    package var defaultText: String
    package var help: String
    /// Applies `text` to the configuration; returns why it is not valid, or nil.
    package var apply: @Sendable (inout Configuration, String) -> String?
}
