@testable import CLI
import Foundation
import PeerHarness
@testable import Store
import Testing
import Vocabulary

/// `waymark export`, read back by a third-party reader: gpsbabel.
struct ExportTests {
    @Test(arguments: ["gpx", "geojson"])
    func anExportedTripReadsBackInGpsbabelWithTheSamePoints(_ format: String) throws {
        let work = try TemporaryDirectory()
        defer { work.remove() }
        let store = try GatewayStore(path: work.file("data/waymark.db"))
        let recordings = RecordingStore(database: store.database)
        try recordings.tripStarted("trip-1", at: 1_796_000_000)
        let points = (0..<25).map { n in
            TripPoint(tripID: "trip-1", time: 1_796_000_000 + Double(n), lat: 48.2175583 + Double(n) * 1e-4, lon: 8.414495 - Double(n) * 2e-4, alt: 765.8)
        }
        try recordings.addPoints(points)
        try recordings.tripEnded("trip-1", at: 1_796_000_024, reason: "beaconLost")
        let out = work.file("trip.\(format)")
        let export = try WaymarkBinary.run(["--data-dir", work.file("data"), "export", "--trip", "trip-1", "--format", format, "--out", out], in: work)
        #expect(export.status == 0, "\(export.output)")

        let back = try Self.readBack(out, format: format, in: work)
        #expect(back.count == points.count)
        for (read, point) in [(back.first, points.first), (back.last, points.last)] {
            let read = try #require(read)
            #expect(abs(read.lat - point!.lat) < 1e-6 && abs(read.lon - point!.lon) < 1e-6)
        }
    }

    /// The points of a GPX or GeoJSON file as gpsbabel reads them: a GPX
    /// track as a track (-t), a GeoJSON LineString as a route (-r).
    static func readBack(_ path: String, format: String, in work: TemporaryDirectory) throws -> [(lat: Double, lon: Double)] {
        let csv = work.file("back-\(UUID().uuidString.prefix(6)).csv")
        let reader = try ChildProcess("gpsbabel", [format == "gpx" ? "-t" : "-r", "-i", format, "-f", path, "-o", "unicsv", "-F", csv], aptPackage: "gpsbabel",
                                      logPath: work.file("gpsbabel.log"))
        guard try reader.wait(timeout: 30) == 0 else { throw PeerError.startFailed("gpsbabel", output: reader.output) }
        let lines = try String(contentsOfFile: csv, encoding: .utf8).split(whereSeparator: \.isNewline)
        let header = lines[0].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        let latColumn = try #require(header.firstIndex(of: "Latitude")), lonColumn = try #require(header.firstIndex(of: "Longitude"))
        return try lines.dropFirst().map { line in
            let fields = line.split(separator: ",", omittingEmptySubsequences: false)
            return (try #require(Double(fields[latColumn])), try #require(Double(fields[lonColumn])))
        }
    }

    /// `waymark trips` gives each trip's point count and the length of its
    /// track: 0.001° of latitude apart is 111.2 m on the mean radius.
    @Test func tripsListThePointsAndTheTrackLength() throws {
        let work = try TemporaryDirectory()
        defer { work.remove() }
        let recordings = RecordingStore(database: try GatewayStore(path: work.file("data/waymark.db")).database)
        try recordings.tripStarted("trip-1", at: 1_796_000_000)
        try recordings.addPoints((0..<11).map { TripPoint(tripID: "trip-1", time: 1_796_000_000 + Double($0), lat: 48 + Double($0) * 1e-3, lon: 8.4, alt: nil) })
        let listed = try WaymarkBinary.run(["--data-dir", work.file("data"), "trips", "--json"], in: work)
        let trips = try #require(try JSONSerialization.jsonObject(with: Data(listed.output.utf8)) as? [[String: Any]])
        #expect(trips.first?["points"] as? Int == 11)
        let metres = try #require(trips.first?["distance_meters"] as? Double)
        #expect(abs(metres - 1111.95) < 0.1, "\(metres)")
    }

    @Test func csvExportHasAHeaderAndOneLinePerPoint() throws {
        let csv = ExportCommand.csv([TripPoint(tripID: "t", time: 1_444_468_352, lat: 48.2, lon: 8.4, alt: nil)])
        #expect(csv == "time,lat,lon,alt\n2015-10-10T09:12:32.000Z,48.2,8.4,\n")
    }
}
