import Foundation
import PeerHarness
import Testing

@Suite(.serialized)
struct LocationCommandTests {
    static func tpvs(_ output: String) throws -> [[String: Any]] {
        try output.split(separator: "\n").filter { $0.hasPrefix("{") }.map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    @Test func gpsDecodesACaptureOfflineWithGpsdFieldNamesAndSkipsBadLines() throws {
        let work = try TemporaryDirectory()
        defer { work.remove() }
        let capture = [
            PseudoTerminal.sentence("GPRMC,120000.00,A,4813.0535,N,00824.8697,E,10.0,90.0,301126,,,A"),
            PseudoTerminal.sentence("GPGGA,120000.00,4813.0535,N,00824.8697,E,2,08,1.0,765.8,M,47.4,M,,"),
            "$GPGGA,120001.00,broken*00\r\n", "\u{1}\u{2}noise\r\n",
            PseudoTerminal.sentence("GPRMC,120001.00,V,,,,,,,301126,,,N"),
        ].joined()
        try capture.write(toFile: work.file("drive.nmea"), atomically: true, encoding: .utf8)
        let result = try WaymarkBinary.run(["gps", "--nmea", work.file("drive.nmea"), "--json"], in: work)
        #expect(result.status == 0)
        let lines = try Self.tpvs(result.output)
        try #require(lines.count == 2)
        #expect(lines[0]["class"] as? String == "TPV")
        #expect(lines[0]["time"] as? String == "2026-11-30T12:00:00.000Z")
        #expect(lines[0]["mode"] as? Int == 3 && lines[0]["status"] as? Int == 2)
        #expect(lines[0]["lat"] as? Double == 48.217558333 && lines[0]["lon"] as? Double == 8.414495)
        #expect(lines[0]["altMSL"] as? Double == 765.8 && lines[0]["altHAE"] as? Double == 813.2)
        #expect(lines[0]["speed"] as? Double == 5.144)
        #expect(lines[1]["mode"] as? Int == 1 && lines[1]["lat"] == nil)
        #expect(result.output.contains("skipped 2 lines that are not NMEA sentences"), "the broken sentence and the noise")
        #expect(try WaymarkBinary.run(["gps", "--nmea", work.file("missing.nmea")], in: work).status == 74)
    }

    @Test func gpsShowsLiveFixesFromGpsdAndStopsAfterCount() throws {
        let work = try TemporaryDirectory()
        defer { work.remove() }
        let receiver = try SimulatedReceiver()
        defer { receiver.stop() }
        let gpsd = try GPSDaemon(device: receiver.terminal.path, directory: work)
        defer { gpsd.stop() }
        try "[Location]\nSource = gpsd://127.0.0.1:\(gpsd.port)\n".write(toFile: work.file("waymark.conf"), atomically: true, encoding: .utf8)
        let result = try WaymarkBinary.run(
            ["--config", work.file("waymark.conf"), "--data-dir", work.file("data"), "gps", "--json", "--count", "3"], in: work)
        #expect(result.status == 0, "\(result.output)")
        let lines = try Self.tpvs(result.output)
        #expect(lines.count == 3)
        #expect(lines.allSatisfy { $0["lat"] as? Double == 48.217558333 })
        #expect(lines.allSatisfy { $0["mode"] as? Int == 3 })
    }
}
