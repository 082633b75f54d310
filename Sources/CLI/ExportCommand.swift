import Basics
package import Command
import Config
import FoundationEssentials
import Logging
import Store
import Vocabulary

/// `waymark export --trip ID --format gpx|geojson|csv [--out FILE]`.
package enum ExportCommand {
    package static let specs: [CommandSpec] = [
        CommandSpec(name: "export", summary: "Write a trip's track as GPX, GeoJSON or CSV.",
                    details: "Every recorded fix of the trip, kept locally after upload.", options: [
            OptionSpec(name: "--trip", valueName: "ID", help: "the trip (see waymark trips)", required: true),
            OptionSpec(name: "--format", valueName: "gpx|geojson|csv", help: "the file format (default gpx)"),
            OptionSpec(name: "--out", valueName: "FILE", help: "write here (mode 0600) instead of standard output; - is standard output"),
            OptionSpec(name: "--force", help: "replace FILE if it exists"),
        ], run: export),
    ]

    static func export(_ invocation: Invocation) async -> ExitCode {
        guard Configuration.load(for: invocation) != nil else { return .config }
        guard let tripID = invocation.values["--trip"].map(TripID.init(rawValue:)) else {
            Log.error("export: give --trip ID (see waymark trips)")
            return .usage
        }
        let format = invocation.values["--format"] ?? "gpx"
        guard ["gpx", "geojson", "csv"].contains(format) else {
            Log.error("export: --format must be gpx, geojson or csv, got \(format.debugDescription)")
            return .usage
        }
        let points: [TripPoint]
        let recordings: RecordingStore
        do {
            recordings = RecordingStore(database: try StoreAccess.existing(invocation, for: "export", absent: "no trip \(tripID); nothing is recorded yet").database)
        } catch { return error }
        do {
            guard try recordings.trips().contains(where: { $0.id == tripID }) else {
                Log.error("export: no trip \(tripID); see waymark trips")
                return .dataError
            }
            points = try recordings.points(of: tripID)
        } catch {
            Log.error("export: \(error)")
            return .ioError
        }
        let text = switch format {
        case "geojson": geoJSON(tripID, points)
        case "csv": csv(points)
        default: gpx(tripID, points)
        }
        if let path = invocation.values["--out"] {
            return PrivateFile.output(text, to: path, invocation, saying: "export: \(points.count) points of \(tripID) written to \(path)")
        } else {
            print(text, terminator: "")
        }
        return .ok
    }

    static func gpx(_ tripID: TripID, _ points: [TripPoint]) -> String {
        var text = """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="waymark" xmlns="http://www.topografix.com/GPX/1/1">
              <trk><name>\(tripID)</name><trkseg>

            """
        for point in points {
            text += #"    <trkpt lat="\#(point.lat)" lon="\#(point.lon)">"#
            if let alt = point.alt { text += "<ele>\(alt)</ele>" }
            text += "<time>\(CivilTime.iso8601(point.time))</time></trkpt>\n"
        }
        return text + "  </trkseg></trk>\n</gpx>\n"
    }

    static func geoJSON(_ tripID: TripID, _ points: [TripPoint]) -> String {
        let coordinates = points.map { point in
            "[\(point.lon),\(point.lat)" + (point.alt.map { ",\($0)" } ?? "") + "]"
        }.joined(separator: ",")
        let times = points.map { #""\#(CivilTime.iso8601($0.time))""# }.joined(separator: ",")
        return #"{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"trip_id":"\#(tripID)","times":[\#(times)]},"#
            + #""geometry":{"type":"LineString","coordinates":[\#(coordinates)]}}]}"# + "\n"
    }

    static func csv(_ points: [TripPoint]) -> String {
        "time,lat,lon,alt\n" + points.map { "\(CivilTime.iso8601($0.time)),\($0.lat),\($0.lon),\($0.alt.map { "\($0)" } ?? "")" }.joined(separator: "\n")
            + (points.isEmpty ? "" : "\n")
    }
}
