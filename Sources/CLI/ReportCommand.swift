import Basics
package import Command
import Config
import FoundationEssentials
import Glibc
import Logging
import Store
import Vocabulary

/// `waymark report [--trip ID | --all] [--out FILE.html | DIR] [--tiles URL]`.
package enum ReportCommand {
    /// OpenStreetMap's standard tiles, shown behind the track when the browser is online.
    static let openStreetMap = "https://tile.openstreetmap.org/{z}/{x}/{y}.png"

    package static let specs: [CommandSpec] = [
        CommandSpec(name: "report", summary: "Write a trip's report: one HTML file that opens offline (map, speed, beacon RSSI, sensors, events, uploads).",
                    details: "Default: the latest trip. With --all, a report per trip and an index page into a directory.", options: [
            OptionSpec(name: "--trip", valueName: "ID", help: "the trip (see waymark trips); default: the latest"),
            OptionSpec(name: "--all", help: "every trip: a report each and index.html, in the directory --out names"),
            OptionSpec(name: "--out", valueName: "FILE", help: "write here (mode 0600) instead of standard output; - is standard output; with --all, a directory"),
            OptionSpec(name: "--force", help: "replace FILE (or the reports in the directory) if it exists"),
            OptionSpec(name: "--tiles", valueName: "URL", help: "map tiles behind the track, {z}/{x}/{y} in the URL; none for no tiles; default: OpenStreetMap's"),
        ], run: report),
    ]

    static func report(_ invocation: Invocation) async -> ExitCode {
        guard let configuration = Configuration.load(for: invocation) else { return .config }
        let option = invocation.values["--tiles"] ?? openStreetMap
        guard option == "none" || Self.isTileTemplate(option) else {
            Log.error("report: --tiles must be an http(s) URL holding {z}, {x} and {y}, or none")
            return .usage
        }
        let tiles = option == "none" ? nil : option
        if invocation.flag("--all") {
            guard invocation.values["--trip"] == nil, let directory = invocation.values["--out"], directory != "-" else {
                Log.error("report: --all writes a directory: give it with --out DIR, without --trip")
                return .usage
            }
            return all(invocation, configuration, to: directory, tiles: tiles)
        }
        let store: GatewayStore
        do { store = try StoreAccess.existing(invocation, for: "report", absent: "nothing is recorded yet") } catch { return error }
        let report: TripReport
        do {
            guard let tripID = try invocation.values["--trip"].map(TripID.init(rawValue:)) ?? RecordingStore(database: store.database).trips().last?.id,
                  let gathered = try gather(store, tripID, configuration) else {
                Log.error("report: no trip \(invocation.values["--trip"] ?? "recorded yet"); see waymark trips")
                return .dataError
            }
            report = gathered
        } catch {
            Log.error("report: \(error)")
            return .ioError
        }
        let html = TripReportPage(report: report, written: Date().timeIntervalSince1970, map: MapAssets.installed(), tiles: tiles).html
        guard let path = invocation.values["--out"] else {
            print(html, terminator: "")
            return .ok
        }
        return PrivateFile.output(html, to: path, invocation, saying: "report: \(report.trip.id) written to \(path)")
    }

    /// A report per trip in `directory` (made if missing, mode 0700), and an index linking them.
    static func all(_ invocation: Invocation, _ configuration: Configuration, to directory: String, tiles: String?) -> ExitCode {
        let store: GatewayStore
        do { store = try StoreAccess.existing(invocation, for: "report", absent: "nothing is recorded yet") } catch { return error }
        if mkdir(directory, 0o700) != 0, errno != EEXIST {
            Log.error("report: cannot create \(directory): \(String(cString: strerror(errno)))")
            return .cannotCreate
        }
        let map = MapAssets.installed()
        var reports: [TripReport] = []
        do {
            for trip in try RecordingStore(database: store.database).trips() {
                guard let report = try gather(store, trip.id, configuration) else { continue }
                let html = TripReportPage(report: report, written: Date().timeIntervalSince1970, map: map, tiles: tiles).html
                let status = PrivateFile.output(html, to: directory + "/" + TripIndexPage.file(of: trip.id), invocation, saying: "report: \(trip.id) written")
                guard status == .ok else { return status }
                reports.append(report)
            }
        } catch {
            Log.error("report: \(error)")
            return .ioError
        }
        let index = TripIndexPage(reports: reports, written: Date().timeIntervalSince1970).html
        return PrivateFile.output(index, to: directory + "/index.html", invocation, saying: "report: \(reports.count) trips indexed in \(directory)/index.html")
    }

    static func gather(_ store: GatewayStore, _ tripID: TripID, _ configuration: Configuration) throws -> TripReport? {
        try TripReport.gather(store, tripID: tripID, beaconLostTimeout: configuration.recording.beaconLostTimeout.seconds,
                              beaconInterval: configuration.recording.beaconInterval.seconds)
    }

    /// An http(s) URL with `{z}`, `{x}` and `{y}` and nothing that could leave a JavaScript string.
    static func isTileTemplate(_ text: String) -> Bool {
        (text.hasPrefix("https://") || text.hasPrefix("http://")) && ["{z}", "{x}", "{y}"].allSatisfy(text.contains)
            && text.count <= 512 && text.unicodeScalars.allSatisfy { $0.value > 0x20 && $0.value < 0x7F && !"\"'\\<>`".unicodeScalars.contains($0) }
    }
}
