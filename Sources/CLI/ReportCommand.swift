import Basics
package import Command
import Config
import FoundationEssentials
import Logging
import Store
import Vocabulary

/// `waymark report --trip ID [--out FILE.html]`.
package enum ReportCommand {
    package static let specs: [CommandSpec] = [
        CommandSpec(name: "report", summary: "Write a trip's report: one HTML file that opens offline (track, beacon RSSI, sensors, events, uploads).", options: [
            OptionSpec(name: "--trip", valueName: "ID", help: "the trip (see waymark trips); default: the latest"),
            OptionSpec(name: "--out", valueName: "FILE", help: "write here (mode 0600) instead of standard output; - is standard output"),
            OptionSpec(name: "--force", help: "replace FILE if it exists"),
        ], run: report),
    ]

    static func report(_ invocation: Invocation) async -> ExitCode {
        guard let configuration = Configuration.load(for: invocation) else { return .config }
        let store: GatewayStore
        do { store = try StoreAccess.existing(invocation, for: "report", absent: "nothing is recorded yet") } catch { return error }
        let report: TripReport
        do {
            guard let tripID = try invocation.values["--trip"].map(TripID.init(rawValue:)) ?? RecordingStore(database: store.database).trips().last?.id,
                  let gathered = try TripReport.gather(store, tripID: tripID, beaconLostTimeout: configuration.recording.beaconLostTimeout.seconds) else {
                Log.error("report: no trip \(invocation.values["--trip"] ?? "recorded yet"); see waymark trips")
                return .dataError
            }
            report = gathered
        } catch {
            Log.error("report: \(error)")
            return .ioError
        }
        let html = TripReportPage(report: report, written: Date().timeIntervalSince1970).html
        guard let path = invocation.values["--out"] else {
            print(html, terminator: "")
            return .ok
        }
        return PrivateFile.output(html, to: path, invocation, saying: "report: \(report.trip.id) written to \(path)")
    }
}
