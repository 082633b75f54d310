import Foundation
import PeerHarness
import Testing

/// `[Recording] Capture` on a live daemon with every peer real, and
/// `waymark replay` of what it wrote, on the host.
@Suite(.serialized)
struct CaptureReplayTests {
    /// A drive (the beacon in sight for 3 s, fixes from gpsd) captured by
    /// the daemon replays to the same trip, within a second, and the same
    /// samples of every kind.
    @Test func aCapturedDriveReplaysToTheSameTripAndSamples() async throws {
        let car = try await RecordingRig(
            config: "[Recording]\nBeaconLostTimeout = 1s\nReopenWindow = 2s\nFixInterval = 200ms\nBeaconInterval = 500ms\nCapture = CAPTURE\n", pairVehicle: true)
        defer { car.stop() }
        let rig = car.session
        let directory = rig.work.file("capture")
        let conf = try String(contentsOfFile: rig.work.file("waymark.conf"), encoding: .utf8)
        try conf.replacingOccurrences(of: "CAPTURE", with: directory).write(toFile: rig.work.file("waymark.conf"), atomically: true, encoding: .utf8)
        let daemon = try await car.startDaemon()
        defer { daemon.stop() }
        try await RecordingRig.waitFor("recording: running", in: daemon)
        let beacon = try await car.keepBeaconInSight()
        try await Task.sleep(for: .seconds(3))
        beacon.cancel()
        try await RecordingRig.waitFor("ended", in: daemon)
        try await withDeadline(.seconds(20), "the queue to drain") {
            while try JSONSerialization.jsonObject(with: Data(rig.run(["queue", "--json"]).output.utf8)) as? [String: Any] == nil
                || (try JSONSerialization.jsonObject(with: Data(rig.run(["queue", "--json"]).output.utf8)) as? [String: Any])?["depth"] as? Int != 0 {
                try await Task.sleep(for: .milliseconds(200))
            }
        }
        daemon.kill(SIGTERM)
        #expect(try daemon.wait(timeout: 5) == 0)
        let live = try rig.backend.summary().kinds
        let liveTrips = try #require(try JSONSerialization.jsonObject(with: Data(rig.run(["trips", "--json"]).output.utf8)) as? [[String: Any]])

        let files = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".wmcap") }
        #expect(files.count == 1, "\(files)")
        let capture = directory + "/" + (files.first ?? "")
        let mode = try FileManager.default.attributesOfItem(atPath: capture)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let replay = try rig.run(["--data-dir", rig.work.file("replayed"), "replay", capture, "--json"])
        #expect(replay.status == 0, "\(replay.output)")
        let outcome = try #require(try JSONSerialization.jsonObject(with: Data(replay.output.split(separator: "\n").last.map(String.init)?.utf8 ?? "".utf8)) as? [String: Any], "\(replay.output)")
        #expect(outcome["complete"] as? Bool == true, "\(outcome)")
        let replayedTrips = try #require(outcome["trips"] as? [[String: Any]])
        #expect(replayedTrips.count == liveTrips.count && liveTrips.count == 1, "live \(liveTrips), replayed \(replayedTrips)")
        for (live, replayed) in zip(liveTrips, replayedTrips) {
            for key in ["start", "end"] {
                let (a, b) = (Self.time(live[key]), Self.time(replayed[key]))
                #expect(a != nil && b != nil && abs(a! - b!) <= 1, "\(key): live \(live[key] ?? "-"), replayed \(replayed[key] ?? "-")")
            }
        }
        let replayed = try #require(outcome["samples"] as? [String: Int])
        for (kind, count) in replayed { #expect(count == live[kind] ?? 0, "\(kind): live \(live[kind] ?? 0), replayed \(count)") }
        #expect((live["beacon"] ?? 0) >= 2 && (live["fix"] ?? 0) >= 3, "\(live)")
    }

    static func time(_ value: Any?) -> Double? {
        guard let text = value as? String else { return nil }
        let parser = ISO8601DateFormatter()
        parser.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return (parser.date(from: text) ?? ISO8601DateFormatter().date(from: text))?.timeIntervalSince1970
    }
}
