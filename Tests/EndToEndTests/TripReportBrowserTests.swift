import Basics
@testable import CLI
import Foundation
import PeerHarness
import Storage
@testable import Store
import Testing
import Vocabulary

/// `waymark report` in headless Chromium, beside the demo's offline check:
/// with a local tile server in OpenStreetMap's place, and `--all`'s index.
struct TripReportBrowserTests {
    /// A store with one trip of `minutes` at a fix a second around a block
    /// near Višnjan: the beacon sampled every 10 s (unheard for a minute
    /// from the middle), a tag's temperature and humidity every minute.
    static func store(minutes: Int, in work: TemporaryDirectory) throws -> String {
        let store = try GatewayStore(path: work.file("data/waymark.db"))
        let recordings = RecordingStore(database: store.database)
        let start = 1_796_000_000.0, seconds = minutes * 60
        try recordings.tripStarted("trip-1", at: start)
        try recordings.addPoints((0..<seconds).map { n in
            let angle: Double = Double(n) / Double(seconds) * 2 * .pi
            let lat: Double = 45.2734 + 0.004 * sin(angle), lon: Double = 13.7141 + 0.006 * (1 - cos(angle))
            let eph: Double = 2.5 + Double(n % 7) / 2
            return TripPoint(tripID: "trip-1", time: start + Double(n), lat: lat, lon: lon, alt: 210, satellites: 7 + n % 5, eph: eph)
        })
        try store.database.write { connection in
            for n in stride(from: 0, to: seconds, by: 10) where !(seconds / 2..<seconds / 2 + 60).contains(n) {
                try connection.run("INSERT INTO trip_reading (trip_id, time, source, quantity, value) VALUES ('trip-1', ?, 'beacon', 'rssi', ?)",
                                   [.real(start + Double(n)), .real(-60 - Double(n % 70) / 7)])
            }
            for n in stride(from: 0, to: seconds, by: 60) {
                for (quantity, value) in [("temperature", 21 + Double(n) / 600), ("humidity", 48 - Double(n) / 900)] {
                    try connection.run("INSERT INTO trip_reading (trip_id, time, source, quantity, value) VALUES ('trip-1', ?, 'pairing-2', ?, ?)",
                                       [.real(start + Double(n)), .text(quantity), .real(value)])
                }
            }
        }
        try recordings.tripEnded("trip-1", at: start + Double(seconds), reason: "beaconLost")
        return work.file("data")
    }

    @Test func withTilesServedTheTrackLiesOverThemAndTheConsoleIsClean() throws {
        let work = try TemporaryDirectory()
        defer { work.remove() }
        let data = try Self.store(minutes: 10, in: work)
        let tiles = try TileServer(directory: work)
        let out = work.file("trip.html")
        let report = try WaymarkBinary.run(["--data-dir", data, "report", "--tiles", tiles.template, "--out", out], in: work)
        #expect(report.status == 0, "\(report.output)")
        let page = try DemoTests.checkInBrowser(out, fixes: 600, in: work, screenshot: "trip-report-tiles.png")
        #expect(Int(DemoTests.attribute("data-tiles-loaded", in: page.dom) ?? "") ?? 0 > 0, "no tile loaded")
        #expect(tiles.served > 0, "\(tiles.process.output.suffix(500))")
        // The tiles' light green fills the map around the track.
        let image = try PNGImage(path: Checkout.path(".build/test-artifacts/trip-report-tiles.png"))
        let box = try #require(DemoTests.attribute("data-track-box", in: page.dom)?.split(separator: ",").compactMap { Int($0) })
        let green = DemoTests.trackPixels(in: image, box: box) { DemoTests.colourDistance($0, (200, 230, 200)) < 12 }
        #expect(green > box[2] * box[3] / 4, "\(green) tile pixels in the map's box")
        // Fix quality where the receiver gave it, a point per fix.
        #expect(DemoTests.points(of: "satellites-path", in: page.dom) == 600 && DemoTests.points(of: "eph-path", in: page.dom) == 600)
        // The beacon's unheard minute is shaded; the summary has the figures.
        #expect(page.dom.contains("class=\"unheard\""))
        #expect(page.dom.contains("beacon heard 90 % of the trip, longest gap 1 min 10 s"), "\(page.dom.prefix(4000))")
    }

    /// Without libjs-leaflet the track is SVG, with a scale bar, and the page still loads cleanly.
    @Test func withoutLeafletTheTrackIsDrawnAsSVGWithAScaleBar() throws {
        let work = try TemporaryDirectory()
        defer { work.remove() }
        let data = try Self.store(minutes: 10, in: work)
        let store = try GatewayStore(path: data + "/waymark.db")
        let report = try #require(try TripReport.gather(store, tripID: "trip-1", beaconLostTimeout: 120, beaconInterval: 10))
        #expect(MapAssets.installed(in: work.file("no-leaflet")) == nil)
        let html = TripReportPage(report: report, written: 1_796_001_000, map: nil, tiles: ReportCommand.openStreetMap).html
        #expect(html.contains(#"id="scale-bar""#) && !html.contains("L.map("), "\(html.prefix(2000))")
        try html.write(toFile: work.file("svg.html"), atomically: true, encoding: .utf8)
        let page = try Chromium.load(work.file("svg.html"), directory: work)
        #expect(page.console.isEmpty, "\(page.console)")
        #expect(DemoTests.points(of: "track-path", in: page.dom) == 600)
    }

    @Test func reportAllWritesAReportPerTripAndAnIndexLinkingThem() throws {
        let work = try TemporaryDirectory()
        defer { work.remove() }
        let data = try Self.store(minutes: 2, in: work)
        let recordings = RecordingStore(database: try GatewayStore(path: data + "/waymark.db").database)
        try recordings.tripStarted("trip-2", at: 1_796_010_000)
        try recordings.tripEnded("trip-2", at: 1_796_010_300, reason: "beaconLost")
        let directory = work.file("reports")
        let all = try WaymarkBinary.run(["--data-dir", data, "report", "--all", "--out", directory, "--tiles", "none"], in: work)
        #expect(all.status == 0, "\(all.output)")
        let index = try String(contentsOfFile: directory + "/index.html", encoding: .utf8)
        for trip in ["trip-1", "trip-2"] {
            #expect(index.contains("<a href=\"report-\(trip).html\">\(trip)</a>"), "\(index)")
            #expect(FileManager.default.fileExists(atPath: directory + "/report-\(trip).html"))
        }
        let page = try Chromium.load(directory + "/index.html", directory: work)
        #expect(page.console.isEmpty, "\(page.console)")
        let again = try WaymarkBinary.run(["--data-dir", data, "report", "--all", "--out", directory], in: work)
        #expect(again.status == 73, "reports are replaced only with --force: \(again.output)")
    }

    /// Not a threshold: the size of a one-hour trip's report and the time
    /// `waymark report` takes for it, printed for the README and the notes.
    @Test func aOneHourTripsReportSizeAndTimeArePrinted() throws {
        let work = try TemporaryDirectory()
        defer { work.remove() }
        let data = try Self.store(minutes: 60, in: work)
        let out = work.file("hour.html")
        let started = ContinuousClock.now
        let report = try WaymarkBinary.run(["--data-dir", data, "report", "--out", out], in: work)
        let took = ContinuousClock.now - started
        #expect(report.status == 0, "\(report.output)")
        let size = (try FileManager.default.attributesOfItem(atPath: out)[.size] as? Int) ?? 0
        #expect(size > 0)
        print("report of a one-hour trip (3,600 fixes, 354 beacon samples, 120 sensor readings): \(size / 1024) KiB, written in \(took)")
    }
}
