package import Command
import Config
import FoundationEssentials
import Logging
import Store

/// `waymark status`: the daemon, the store and the requirements, at a glance.
package enum StatusCommand {
    package static let spec = CommandSpec(name: "status", summary: "Show the daemon, store and requirement state.",
                    details: "Whether the daemon runs, the scan mode and adapter, the store, the missing requirements, and the four settings the fleet may push, each with its value in force and its source (local or pushed). It reads the live daemon over D-Bus when it runs, else the last state recorded in the store.",
        options: [OptionSpec(name: "--json", help: "print one JSON object")]) { invocation in
        guard let configuration = Configuration.load(for: invocation) else { return .config }
        let store: GatewayStore?
        switch StoreAccess.open(invocation, for: "status", create: false) {
        case .store(let opened): store = opened
        case .absent: store = nil
        case .failed(let code): return code
        }
        do {
            let report = try await StatusReport.gather(invocation, configuration: configuration, store: store)
            if invocation.flag("--json") {
                print(String(decoding: try JSONEncoder.snakeCase.encode(report), as: UTF8.self))
            } else {
                print(report.text)
            }
            return .ok
        } catch {
            Log.error("status: \(error)")
            return StoreAccess.exitCode(for: error)
        }
    }
}
