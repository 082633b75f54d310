import Capture
import Foundation
import PeerHarness
import Testing
import Upload
import Vocabulary

/// `waymark replay` of synthesised busy-air captures: deterministic, open
/// to other settings, and honest about cut and newer files.
struct ReplayTests {
    struct Outcome {
        var status: Int32
        var output: String
        var json: [String: Any]

        var trips: [[String: Any]] { json["trips"] as? [[String: Any]] ?? [] }
        var samples: [String: Int] { json["samples"] as? [String: Int] ?? [:] }
        var records: Int { json["records"] as? Int ?? 0 }
    }

    static func replay(_ capture: String, into directory: String, _ extra: [String] = []) throws -> Outcome {
        let process = try ChildProcess(try WaymarkBinary.path, ["--data-dir", directory] + extra + ["replay", capture, "--json"], aptPackage: "(built by swift build)",
                                       logPath: directory + ".log")
        let status = try process.wait(timeout: 120)
        let output = process.output
        let line = output.split(separator: "\n").last { $0.hasPrefix("{") }.map(String.init) ?? "{}"
        return Outcome(status: status, output: output, json: (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]) ?? [:])
    }

    /// A busy-air capture with `noise` other advertisers, written to `drive.wmcap` in `work`.
    static func drive(_ seconds: Int, beaconInRange: [Range<Int>], noise: Int, in work: TemporaryDirectory) throws -> String {
        var drive = BusyAirCapture(seconds: seconds, beaconInRange: beaconInRange)
        drive.noiseDevices = noise
        try drive.write(to: work.file("drive.wmcap"))
        return work.file("drive.wmcap")
    }

    static func starts(_ outcome: Outcome) -> [String] { outcome.trips.map { "\($0["start"] ?? "-")–\($0["end"] ?? "open")" } }

    @Test func theSameCaptureAlwaysReplaysToTheSameTripsAndSamples() throws {
        let work = try TemporaryDirectory("waymark-replay")
        defer { work.remove() }
        let capture = try Self.drive(150, beaconInRange: [10..<90], noise: 10, in: work)
        let first = try Self.replay(capture, into: work.file("first"))
        let second = try Self.replay(capture, into: work.file("second"))
        #expect(first.status == 0 && second.status == 0, "\(first.output)")
        #expect(first.json["complete"] as? Bool == true)
        #expect(first.trips.count == 1 && first.trips.first?["end_reason"] as? String == "beaconLost", "\(first.output)")
        #expect(Self.starts(first) == Self.starts(second))
        #expect(first.samples == second.samples && first.records == second.records)
        // Ten seconds between beacon samples over the 80 s in range; a fix a second from the trip's start to its end.
        let samples = first.samples
        #expect((8...9).contains(samples["beacon"] ?? 0) && (80...120).contains(samples["fix"] ?? 0), "\(samples)")
        #expect(samples["event"] == 2, "the trip's start and end")

        // The replayed trip has its report: a speed point per fix, an RSSI point per beacon sample.
        let report = try ChildProcess(try WaymarkBinary.path, ["--data-dir", work.file("first"), "report", "--out", work.file("replayed.html")],
                                      aptPackage: "(built by swift build)", logPath: work.file("report.log"))
        #expect(try report.wait(timeout: 60) == 0, "\(report.output)")
        let html = try String(contentsOfFile: work.file("replayed.html"), encoding: .utf8)
        #expect(html.contains(#"id="speed-path" data-points="\#(samples["fix"] ?? -1)""#) && html.contains(#"id="rssi-path" data-points="\#(samples["beacon"] ?? -1)""#))
    }

    @Test func anotherBeaconLostTimeoutChangesWhatTheSameDriveRecords() throws {
        let work = try TemporaryDirectory("waymark-replay")
        defer { work.remove() }
        // The beacon is out of range for 20 s in the middle of the drive.
        let capture = try Self.drive(160, beaconInRange: [10..<60, 80..<120], noise: 5, in: work)
        let asDriven = try Self.replay(capture, into: work.file("as-driven"))
        #expect(asDriven.trips.count == 1, "30 s BeaconLostTimeout bridges the 20 s hole: \(asDriven.output)")
        try "[Recording]\nBeaconLostTimeout = 10s\nReopenWindow = 5s\n".write(toFile: work.file("short.conf"), atomically: true, encoding: .utf8)
        let short = try Self.replay(capture, into: work.file("short"), ["--config", work.file("short.conf")])
        #expect(short.status == 0, "\(short.output)")
        #expect(short.trips.count == 2, "10 s does not: \(short.output)")
    }

    @Test func aCaptureCutAtAnyByteReplaysUpToTheCutAndSaysWhere() throws {
        let work = try TemporaryDirectory("waymark-replay")
        defer { work.remove() }
        let capture = try Self.drive(60, beaconInRange: [5..<50], noise: 5, in: work)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: capture))
        let whole = try Self.replay(capture, into: work.file("whole"))
        var random = SystemRandomNumberGenerator()
        let cut = Int.random(in: bytes.count / 4..<bytes.count - 16, using: &random)
        try bytes.prefix(cut).write(to: URL(fileURLWithPath: work.file("cut.wmcap")))
        let partial = try Self.replay(work.file("cut.wmcap"), into: work.file("partial"))
        #expect(partial.status == 0, "\(partial.output)")
        #expect(partial.output.contains("is cut after record \(partial.records)"), "cut at byte \(cut) of \(bytes.count): \(partial.output)")
        #expect(partial.json["complete"] as? Bool == false && (partial.json["stopped_at"] as? String)?.contains("cut after record") == true)
        #expect(partial.records > 0 && partial.records < whole.records, "cut at byte \(cut): \(partial.records) of \(whole.records) records")
    }

    /// Numbers a capture carries from outside: a health interval of NaN,
    /// infinity, 1e300 or below zero, and clocks at 1e300 or going
    /// backwards. The replay goes through them all and reports each health
    /// interval clamped.
    @Test func hostileNumbersInACaptureNeitherCrashNorStopTheReplay() throws {
        let work = try TemporaryDirectory("waymark-replay")
        defer { work.remove() }
        let header = CaptureHeader(waymarkVersion: "0.1.0", started: 0, bootID: "b", config: "", pairings: "[]")
        var records = [CaptureRecord(boot: 10, wall: 1_796_000_000, synchronized: true, body: .state(.running(true)))]
        for (index, seconds) in [Double.nan, .infinity, -.infinity, 1e300, -5, 300, -.nan].enumerated() {
            records.append(CaptureRecord(boot: 11 + Double(index), wall: 1_796_000_001 + Double(index), synchronized: true,
                                         body: .state(.health(seconds: seconds))))
        }
        records.append(CaptureRecord(boot: 1e300, wall: 1e300, synchronized: false, body: .state(.event(Event(.radioRecovered)))))
        records.append(CaptureRecord(boot: 5, wall: -1e300, synchronized: false, body: .state(.running(false))))
        try Data(Gzip.compress(CaptureCodec.stream(header: header, records: records))).write(to: URL(fileURLWithPath: work.file("hostile.wmcap")))
        let replay = try Self.replay(work.file("hostile.wmcap"), into: work.file("data"))
        #expect(replay.status == 0 && replay.json["complete"] as? Bool == true, "\(replay.output)")
        #expect(replay.records == records.count && replay.samples["radio_health"] == 7 && replay.samples["event"] == 1, "\(replay.output)")
    }

    @Test func aCaptureFromANewerWaymarkIsRefusedWithAClearMessage() throws {
        let work = try TemporaryDirectory("waymark-replay")
        defer { work.remove() }
        let header = CaptureHeader(waymarkVersion: "9.0.0", started: 0, bootID: "b", config: "", pairings: "[]")
        try Data(Gzip.compress(CaptureCodec.stream(header: header, records: [], format: CaptureHeader.currentFormat + 1)))
            .write(to: URL(fileURLWithPath: work.file("newer.wmcap")))
        let refused = try Self.replay(work.file("newer.wmcap"), into: work.file("data"))
        #expect(refused.status == 65, "\(refused.output)")
        #expect(refused.output.contains("capture format \(CaptureHeader.currentFormat + 1) is newer than this waymark reads"), "\(refused.output)")
        #expect(refused.output.split(separator: "\n").count == 1, "one line")

        // Without --data-dir, replay would write into the gateway's own store: refused.
        let bare = try ChildProcess(try WaymarkBinary.path, ["replay", work.file("newer.wmcap")], aptPackage: "(built by swift build)",
                                    logPath: work.file("bare.log"))
        #expect(try bare.wait(timeout: 30) == 64 && bare.output.contains("give --data-dir DIR"), "\(bare.output)")
    }
}
