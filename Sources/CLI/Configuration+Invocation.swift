package import Command
package import Config
import Logging

extension Configuration {
    /// The configuration a command was given, or nil after printing its
    /// one-line error (file, line, key).
    package static func load(for invocation: Invocation) -> Configuration? {
        do {
            return try Configuration.load(path: invocation.configPath, explicit: invocation.configExplicit)
        } catch {
            Log.error(error.description)
            return nil
        }
    }
}
