import Foundation
@testable import Gateway
import PeerHarness
import Testing

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

        let csv = work.file("back.csv")
        // gpsbabel reads a GPX track as a track (-t), a GeoJSON LineString as a route (-r).
        let reader = try ChildProcess("gpsbabel", [format == "gpx" ? "-t" : "-r", "-i", format, "-f", out, "-o", "unicsv", "-F", csv], aptPackage: "gpsbabel",
                                      logPath: work.file("gpsbabel.log"))
        #expect(try reader.wait(timeout: 30) == 0, "\(reader.output)")
        let lines = try String(contentsOfFile: csv, encoding: .utf8).split(whereSeparator: \.isNewline)
        let header = lines[0].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        let latColumn = try #require(header.firstIndex(of: "Latitude")), lonColumn = try #require(header.firstIndex(of: "Longitude"))
        let rows = lines.dropFirst().map { $0.split(separator: ",", omittingEmptySubsequences: false) }
        #expect(rows.count == points.count)
        for (row, point) in [(rows.first, points.first), (rows.last, points.last)] {
            let lat = try #require(row.flatMap { Double($0[latColumn]) }), lon = try #require(row.flatMap { Double($0[lonColumn]) })
            #expect(abs(lat - point!.lat) < 1e-6 && abs(lon - point!.lon) < 1e-6)
        }
    }

    @Test func csvExportHasAHeaderAndOneLinePerPoint() throws {
        let csv = ExportCommand.csv([TripPoint(tripID: "t", time: 1_444_468_352, lat: 48.2, lon: 8.4, alt: nil)])
        #expect(csv == "time,lat,lon,alt\n2015-10-10T09:12:32.000Z,48.2,8.4,\n")
    }
}
