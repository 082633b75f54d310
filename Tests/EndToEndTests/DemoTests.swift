import Basics
import Foundation
import PeerHarness
import Testing

/// `make demo`: one drive with every peer real and no hardware.
struct DemoTests {
    /// 65 s of a car drive (Garmin eTrex 20x), played a fix a second.
    static let drive = Checkout.path("Tests/LocationTests/drives/visnjan-car.gpx")

    @Test func theDemosTripLastsAsLongAsItsDriveAgreesWithItsEventsAndLeavesNothingRunning() throws {
        let work = try TemporaryDirectory("waymark-demo-test")
        defer { work.remove() }
        let started = Date()
        let demo = try ChildProcess(try WaymarkBinary.named("waymark-demo"), ["--drive", Self.drive, "--out", work.file("trip.geojson"), "--report", work.file("trip.html")],
                                    aptPackage: "(built by swift build)", logPath: work.file("demo.log"))
        let status = try demo.wait(timeout: 240)
        let elapsed = -started.timeIntervalSinceNow
        let output = demo.output
        #expect(status == 0, "\(output)")
        #expect(elapsed < 120, "the demo took \(Int(elapsed)) s; it must stay under 2 minutes")

        // Every fix of the drive in the trip, every sample uploaded once: the car's beacon, the cabin's tag, the fixes.
        #expect(output.contains("distance  0.71 km over 66 fixes"), "\(output)")
        #expect(output.contains(", 0 duplicates"), "\(output)")
        for kind in ["beacon", "sensor", "fix", "event"] {
            #expect(output.range(of: #"[ (][0-9]+ \#(kind)[,)]"#, options: .regularExpression) != nil, "no \(kind) samples uploaded: \(output)")
        }

        // The trip lasts as long as the drive was recorded over, and its ends agree with its events.
        let start = try #require(Self.time(after: "\nstart     ", in: output), "\(output)")
        let end = try #require(Self.time(after: "\nend       ", in: output), "\(output)")
        #expect(end > started.timeIntervalSince1970 - 5 && end < Date().timeIntervalSince1970 + 5, "the trip ends at \(CivilTime.iso8601(end))")
        let html = try String(contentsOfFile: work.file("trip.html"), encoding: .utf8)
        let drive = try #require(Self.fixTimes(in: html), "the report's fix times")
        let recorded: Double = drive.upperBound - drive.lowerBound
        let lasted: Double = end - start
        #expect(recorded > 55 && abs(lasted - recorded) <= 0.1 * recorded, "the trip lasts \(lasted) s; its fixes span \(recorded) s")
        #expect(start <= drive.lowerBound + 1 && end >= drive.upperBound - 1, "trip \(start)...\(end), fixes \(drive)")
        for (event, time) in [("tripStarted", start), ("tripEnded", end)] {
            let logged = try #require(Self.eventTime(event, in: html), "no \(event) in the report's events")
            #expect(abs(logged - time) < 1.5, "\(event) logged at \(CivilTime.iso8601(logged)), the trip says \(CivilTime.iso8601(time))")
        }

        // The track, read back by gpsbabel: the drive's first and last fixes.
        let track = try ExportTests.readBack(work.file("trip.geojson"), format: "geojson", in: work)
        #expect(track.count == 66)
        #expect(abs(track.first!.lat - 45.273417) < 1e-4 && abs(track.first!.lon - 13.714133) < 1e-4, "\(track.first!)")
        #expect(abs(track.last!.lat - 45.276233) < 1e-4 && abs(track.last!.lon - 13.714267) < 1e-4, "\(track.last!)")

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
        let page = try Self.checkInBrowser(work.file("trip.html"), fixes: 66, in: work, screenshot: "trip-report.png")
        // It all uploaded: every position and reading acknowledged, none queued.
        #expect(Self.attribute("data-queued", in: page.dom) == "0" && (Int(Self.attribute("data-acknowledged", in: page.dom) ?? "") ?? 0) > 100, "\(page.dom.suffix(3000))")
        // The beacon's RSSI wanders, and the cabin's tag has charts of its own.
        #expect(Set(Self.values(of: "rssi-path", in: page.dom)).count >= 5, "a flat RSSI line")
        #expect(page.dom.components(separatedBy: "class=\"sensor-path\"").count - 1 >= 3, "the tag's charts")
    }

    /// The report in headless Chromium, which reaches no other host: no
    /// console errors; the map's track drawn with a point per fix, and a
    /// timeline point per fix; on the screenshot, the track's colours inside
    /// the box the page says the map occupies. The screenshot is kept in
    /// `.build/test-artifacts/`.
    @discardableResult
    static func checkInBrowser(_ report: String, fixes: Int, in work: TemporaryDirectory, screenshot name: String) throws -> Chromium.Page {
        let html = try String(contentsOfFile: report, encoding: .utf8)
        for outside in ["<script src", "<link", "@import", "<iframe"] {
            #expect(!html.contains(outside), "the report loads \(outside) from elsewhere")
        }
        let page = try Chromium.load(report, directory: work)
        #expect(page.console.isEmpty, "\(page.console)")
        #expect(attribute("data-track-points", in: page.dom) == String(fixes), "\(page.dom.prefix(3000))")
        #expect(points(of: "speed-path", in: page.dom) == fixes)
        let box = try #require(attribute("data-track-box", in: page.dom)?.split(separator: ",").compactMap { Int($0) }, "the page's script ran")
        try #require(box.count == 4 && box[2] > 100 && box[3] > 100, "\(box)")

        let artifacts = Checkout.path(".build/test-artifacts")
        try FileManager.default.createDirectory(atPath: artifacts, withIntermediateDirectories: true)
        let png = artifacts + "/" + name
        try? FileManager.default.removeItem(atPath: png)
        try Chromium.screenshot(report, to: png, width: 1000, height: 1400, directory: work)
        let track = trackPixels(in: try PNGImage(path: png), box: box)
        #expect(track > 300, "\(track) track-coloured pixels in the map's box on \(png)")
        return page
    }

    /// Pixels in `box` of the speed bands' colours (#1565c0, #2e7d32, #ef6c00, #c62828).
    static func trackPixels(in image: PNGImage, box: [Int], matching test: ((Int, Int, Int)) -> Bool = isTrackColour) -> Int {
        var count = 0
        for y in box[1]..<min(box[1] + box[3], image.height) {
            for x in box[0]..<min(box[0] + box[2], image.width) {
                let (r, g, b) = image.rgb(x, y)
                if test((Int(r), Int(g), Int(b))) { count += 1 }
            }
        }
        return count
    }

    static func isTrackColour(_ rgb: (Int, Int, Int)) -> Bool {
        let bands: [(Int, Int, Int)] = [(0x15, 0x65, 0xc0), (0x2e, 0x7d, 0x32), (0xef, 0x6c, 0x00), (0xc6, 0x28, 0x28)]
        return bands.contains { colourDistance($0, rgb) < 40 }
    }

    /// The sum of the channels' differences.
    static func colourDistance(_ a: (Int, Int, Int), _ b: (Int, Int, Int)) -> Int {
        let red: Int = abs(a.0 - b.0), green: Int = abs(a.1 - b.1), blue: Int = abs(a.2 - b.2)
        return red + green + blue
    }

    /// The first and last fix times the report's summary carries.
    static func fixTimes(in html: String) -> ClosedRange<Double>? {
        guard let text = attribute("data-fixes", in: html) else { return nil }
        let times = text.split(separator: ",").compactMap { Double($0) }
        return times.count == 2 && times[0] <= times[1] ? times[0]...times[1] : nil
    }

    /// The time of the first `kind` row in the report's events table.
    static func eventTime(_ kind: String, in html: String) -> Double? {
        guard let cell = html.range(of: "</td><td>\(kind)</td>"),
              let open = html.range(of: "<tr><td>", options: .backwards, range: html.startIndex..<cell.lowerBound) else { return nil }
        return CivilTime.parseISO8601(html[open.upperBound..<cell.lowerBound].replacingOccurrences(of: " ", with: "T"))
    }

    /// The y values of the polyline with `id`.
    static func values(of id: String, in dom: String) -> [Double] {
        guard let element = dom.range(of: "id=\"\(id)\"") else { return [] }
        let tag = dom[dom[..<element.lowerBound].range(of: "<", options: .backwards)!.lowerBound...].prefix { $0 != ">" }
        return (attribute("points", in: String(tag)) ?? "").split(separator: " ").compactMap { $0.split(separator: ",").last.flatMap { Double($0) } }
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
