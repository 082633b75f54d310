package import Command
import Config

/// `waymark config`: checks the config file, or prints a commented default one.
package enum ConfigCommand {
    package static let spec = CommandSpec(name: "config", summary: "Check the config file, or print a commented default one.",
                    details: "--require-backend exits 1, with one line, unless [Session] Issuer and [Backend] BaseURL are set: the unit's start condition.",
        options: [OptionSpec(name: "--defaults", help: "print every key with its default"),
                  OptionSpec(name: "--require-backend", help: "exit 1 unless [Session] Issuer and [Backend] BaseURL are set (the unit's start condition)")]) { invocation in
        if invocation.flag("--defaults") {
            print(Configuration.documentedDefaults, terminator: "")
            return .ok
        }
        guard let configuration = Configuration.load(for: invocation) else { return .config }
        if invocation.flag("--require-backend") {
            let missing = [("[Session] Issuer", configuration.session.issuer), ("[Backend] BaseURL", configuration.backend.baseURL)]
                .filter { $0.1?.isEmpty ?? true }.map(\.0)
            guard missing.isEmpty else {
                print("\(invocation.configPath): no backend yet: set \(missing.joined(separator: " and ")), then systemctl start waymark")
                return .failure
            }
        }
        print("\(invocation.configPath): ok")
        return .ok
    }
}
