import Basics
import Foundation
import PeerHarness
import Testing

/// `make demo`: one drive with every peer real and no hardware.
struct DemoTests {
    /// nl2008u.log: a u-blox 8 in a car in the Black Forest; nine valid fixes.
    static let log = Checkout.path("Tests/LocationTests/gpsd/nl2008u.log")

    @Test func theDemoRecordsTheDriveUploadsItWritesTheTrackAndAReportAndLeavesNothingRunning() throws {
        let work = try TemporaryDirectory("waymark-demo-test")
        defer { work.remove() }
        let started = Date()
        let demo = try ChildProcess(try WaymarkBinary.named("waymark-demo"), ["--log", Self.log, "--out", work.file("trip.geojson"), "--report", work.file("trip.html")],
                                    aptPackage: "(built by swift build)", logPath: work.file("demo.log"))
        let status = try demo.wait(timeout: 240)
        let elapsed = -started.timeIntervalSinceNow
        let output = demo.output
        #expect(status == 0, "\(output)")
        #expect(elapsed < 120, "the demo took \(Int(elapsed)) s; it must stay under 2 minutes")

        // The summary: the whole drive, every sample uploaded once.
        #expect(output.contains("9 points, 0.69 km  (beaconLost)"), "\(output)")
        #expect(output.contains("distance  0.69 km over 9 fixes"))
        #expect(output.contains("uploaded  14 samples (2 beacon, 2 event, 9 fix, 1 gateway_info), 0 duplicates"), "\(output)")
        // The 2015 log is moved to end now: the trip is dated by the run
        // (not 1024 weeks on, where gpsd 3.22 puts the log's own dates),
        // and spans the drive's 22 minutes.
        let start = try #require(Self.time(after: "\nstart     ", in: output), "\(output)")
        let end = try #require(Self.time(after: "\nend       ", in: output), "\(output)")
        #expect(end > started.timeIntervalSince1970 - 5 && end < Date().timeIntervalSince1970 + 5, "the trip ends at \(CivilTime.iso8601(end))")
        #expect(abs(end - start - 1341) < 30, "the trip lasts \(end - start) s")

        // The track, read back by gpsbabel: the log's first and last fixes.
        let track = try ExportTests.readBack(work.file("trip.geojson"), format: "geojson", in: work)
        #expect(track.count == 9)
        #expect(abs(track.first!.lat - 48.217558333) < 1e-6 && abs(track.first!.lon - 8.414495) < 1e-6)
        #expect(abs(track.last!.lat - 48.2208) < 1e-6 && abs(track.last!.lon - 8.421881667) < 1e-6)

        // Every process it started is gone, with its process group.
        let pids = output.split(separator: "\n").compactMap { line in
            line.range(of: ", pid ").flatMap { Int32(line[$0.upperBound...].prefix { $0.isNumber }) }
        }
        #expect(pids.count == 6, "\(output)")
        for pid in pids {
            #expect(kill(pid, 0) != 0 && kill(-pid, 0) != 0, "process \(pid) is still running")
        }
        #expect(output.contains("cleaned up: every process the demo started has exited"))
        #expect(output.contains("report    \(work.file("trip.html"))"))
        try Self.checkInBrowser(work.file("trip.html"), fixes: 9, beaconSamples: 2, in: work)
    }

    /// The report in headless Chromium: no console errors; a track path
    /// with a point per fix and an RSSI timeline with a point per beacon
    /// sample; and on the screenshot, the track's colour inside the box the
    /// page says the track occupies. The screenshot is kept in
    /// `.build/test-artifacts/`.
    static func checkInBrowser(_ report: String, fixes: Int, beaconSamples: Int, in work: TemporaryDirectory) throws {
        let html = try String(contentsOfFile: report, encoding: .utf8)
        #expect(!html.contains("http://") && !html.contains("https://") && !html.contains(" src="), "the report loads nothing from anywhere")
        let page = try Chromium.load(report, directory: work)
        #expect(page.console.isEmpty, "\(page.console)")
        #expect(Self.points(of: "track-path", in: page.dom) == fixes, "\(page.dom.prefix(3000))")
        #expect(Self.points(of: "rssi-path", in: page.dom) == beaconSamples)
        let box = try #require(Self.attribute("data-track-box", in: page.dom)?.split(separator: ",").compactMap { Int($0) }, "the page's script ran")
        try #require(box.count == 4 && box[2] > 100 && box[3] > 100, "\(box)")

        let artifacts = Checkout.path(".build/test-artifacts")
        try FileManager.default.createDirectory(atPath: artifacts, withIntermediateDirectories: true)
        let png = artifacts + "/trip-report.png"
        try? FileManager.default.removeItem(atPath: png)
        try Chromium.screenshot(report, to: png, width: 1000, height: 1400, directory: work)
        let image = try PNGImage(path: png)
        var blue = 0
        for y in box[1]..<min(box[1] + box[3], image.height) {
            for x in box[0]..<min(box[0] + box[2], image.width) {
                let (r, g, b) = image.rgb(x, y)
                // The track's stroke, #1565c0.
                if b > 150 && r < 80 && g < 140 { blue += 1 }
            }
        }
        #expect(blue > 300, "\(blue) track-coloured pixels in the track's box on \(png)")
    }

    /// The ISO 8601 time printed after `label` in the demo's summary.
    static func time(after label: String, in output: String) -> Double? {
        output.range(of: label).flatMap { CivilTime.parseISO8601(output[$0.upperBound...].prefix { !$0.isWhitespace }) }
    }

    /// The number of points in the `points` attribute of the element with `id`.
    static func points(of id: String, in dom: String) -> Int? {
        guard let element = dom.range(of: "id=\"\(id)\"") else { return nil }
        let tag = dom[dom[..<element.lowerBound].range(of: "<", options: .backwards)!.lowerBound...].prefix { $0 != ">" }
        guard let value = Self.attribute("points", in: String(tag)) else { return nil }
        return value.split(separator: " ").count
    }

    static func attribute(_ name: String, in text: String) -> String? {
        guard let start = text.range(of: " \(name)=\"") else { return nil }
        return String(text[start.upperBound...].prefix { $0 != "\"" })
    }
}
