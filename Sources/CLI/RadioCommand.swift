package import Command
import Config
import Control
import DBus
import FoundationEssentials
import Logging
import Telemetry

/// `waymark radio`: the radio's health over the current interval so far,
/// from the running daemon (the same fields as its `radio_health` samples).
package enum RadioCommand {
    package static let specs = [
        CommandSpec(name: "radio", summary: "Show the radio's health (adverts per minute, restarts, paired devices seen) from the running daemon.",
                    details: "The fields of the radio_health sample for the interval so far. Exit 69 when no daemon answers.",
                    options: [OptionSpec(name: "--json", help: "one JSON object, as the radio_health sample")], run: run),
    ]

    static func run(_ invocation: Invocation) async -> ExitCode {
        guard Configuration.load(for: invocation) != nil else { return .config }
        let bus: DBusConnection
        do { bus = try await DBusConnection.system() } catch {
            Log.error("radio: the daemon: \(DaemonUnreachable.noSystemBus("\(error)"))")
            return .unavailable
        }
        defer { bus.close() }
        let json: String
        do {
            let reply = try await bus.call(
                destination: ControlInterface.busName, path: ControlInterface.path, interface: "org.freedesktop.DBus.Properties", method: "Get",
                arguments: [.string(ControlInterface.interface), .string("RadioHealth")], timeout: .seconds(2))
            guard let text = reply.first?.string else {
                Log.error("radio: the daemon: \(DaemonUnreachable.failed("its RadioHealth is not text"))")
                return .unavailable
            }
            json = text
        } catch {
            Log.error("radio: the daemon: \(DaemonUnreachable(error))")
            return .unavailable
        }
        if invocation.flag("--json") {
            print(json)
            return .ok
        }
        guard let report = try? JSONDecoder().decode(RadioHealth.self, from: Data(json.utf8)) else {
            Log.error("radio: the daemon's report is not a health report")
            return .software
        }
        print(text(report))
        return .ok
    }

    static func text(_ report: RadioHealth) -> String {
        var lines = ["radio over the last \(report.intervalSeconds) s"]
        if report.scanning.isEmpty { lines.append("  not scanning") }
        for entry in report.scanning {
            lines.append("  \(entry.adapter) \(entry.mode): \(entry.adverts) adverts, \(entry.advertsPerMinute)/min")
        }
        let steps = report.ladderSteps.isEmpty ? "none" : report.ladderSteps.joined(separator: ", ")
        lines.append("  restarts: \(report.discoveryRestarts); recovery steps: \(steps)")
        lines.append("  strangers' adverts shed under overload: \(report.strangersShed)")
        for paired in report.paired {
            let rssi = paired.strongestRSSI.map { ", strongest \($0) dBm" } ?? ""
            lines.append("  \(paired.role) \(paired.identity): \(paired.seen ? "seen" + rssi : "not seen")")
        }
        return lines.joined(separator: "\n")
    }
}
