import BlueZ
import Capture
import Foundation
import PeerHarness
import Radio
import Testing
import Vocabulary

/// `[Recording] Capture` on a live daemon with every peer real, and
/// `waymark replay` of what it wrote, on the host.
@Suite(.serialized)
struct CaptureReplayTests {
    /// A rig whose daemon captures into the returned directory, with short trip timeouts.
    static func capturingRig() async throws -> (RecordingRig, String) {
        let car = try await RecordingRig(
            config: "[Recording]\nBeaconLostTimeout = 1s\nReopenWindow = 2s\nFixInterval = 200ms\nBeaconInterval = 500ms\nCapture = CAPTURE\n"
                + "[Bluetooth]\nHealthInterval = 1s\n", pairVehicle: true)
        let work = car.session.work
        let directory = work.file("capture")
        let conf = try String(contentsOfFile: work.file("waymark.conf"), encoding: .utf8)
        try conf.replacingOccurrences(of: "CAPTURE", with: directory).write(toFile: work.file("waymark.conf"), atomically: true, encoding: .utf8)
        return (car, directory)
    }

    /// A drive (the beacon in sight for 3 s, fixes from gpsd) captured by
    /// the daemon replays to the same trip, within a second, and the same
    /// samples of every kind.
    @Test func aCapturedDriveReplaysToTheSameTripAndSamples() async throws {
        let (car, directory) = try await Self.capturingRig()
        defer { car.stop() }
        let rig = car.session
        let daemon = try await car.startAndDrive(seconds: 3)
        defer { daemon.stop() }
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
        // What the gateway runs (gateway_info) is the live machine's; replay is not a gateway.
        for (kind, count) in replayed where kind != "gateway_info" { #expect(count == live[kind] ?? 0, "\(kind): live \(live[kind] ?? 0), replayed \(count)") }
        #expect((live["beacon"] ?? 0) >= 2 && (live["fix"] ?? 0) >= 3, "\(live)")
    }

    /// The rows a store holds of a recording, as text, for comparing two stores.
    static func rows(_ path: String, _ sql: String, in work: TemporaryDirectory) throws -> [String] {
        let sqlite = try ChildProcess("sqlite3", ["-separator", " | ", path, sql], aptPackage: "sqlite3", logPath: work.file("rows-\(UUID().uuidString).log"))
        #expect(try sqlite.wait(timeout: 30) == 0, "\(sqlite.output)")
        return sqlite.output.split(separator: "\n").map(String.init)
    }

    /// The same drive recorded live, its uploads held back so that every
    /// sample stays in the outbox, and replayed from its capture: one
    /// executor carries out the core's decisions for both, so the stores
    /// hold the same trips, the same events and the same samples, to the
    /// byte (times, ids, contents, in order). `gateway_info` is the live
    /// machine's alone, so the samples' order is compared, not their
    /// sequence numbers, which it takes some of.
    @Test func aLiveRecordingAndItsReplayHoldTheSameRowsToTheByte() async throws {
        let (car, directory) = try await Self.capturingRig()
        defer { car.stop() }
        let rig = car.session
        try rig.backend.setFaults(#"{"queue":["# + Array(repeating: #"{"kind":"503"}"#, count: 200).joined(separator: ",") + "]}")
        let daemon = try await car.startAndDrive(seconds: 3)
        defer { daemon.stop() }
        try await RecordingRig.waitFor("ended", in: daemon)
        daemon.kill(SIGTERM)
        #expect(try daemon.wait(timeout: 5) == 0)
        let files = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".wmcap") }
        let capture = directory + "/" + (files.first ?? "")
        let replay = try rig.run(["--data-dir", rig.work.file("replayed"), "replay", capture, "--json"])
        #expect(replay.status == 0, "\(replay.output)")

        let (live, replayed) = (rig.work.file("data/waymark.db"), rig.work.file("replayed/waymark.db"))
        let queries = [
            "SELECT id, start, end, end_reason FROM trip ORDER BY id",
            // The daemon's own events are its alone: its stop, and the requirement check's snapshot for `status`.
            "SELECT printf('%.6f', time), kind, detail FROM event WHERE kind NOT IN ('stopped', 'storeRecovered', 'requirementsMissing') ORDER BY id",
            "SELECT printf('%.6f', time), trip_id, kind, fields, time_source FROM outbox WHERE kind != 'gateway_info' ORDER BY seq",
        ]
        for query in queries {
            let (a, b) = (try Self.rows(live, query, in: rig.work), try Self.rows(replayed, query, in: rig.work))
            #expect(!a.isEmpty && a == b, "\(query)\nlive:\n\(a.joined(separator: "\n"))\nreplayed:\n\(b.joined(separator: "\n"))")
        }
        // The radio's health reports are among those rows, with adverts counted: replay counts them from the capture.
        let health = try Self.rows(live, "SELECT fields FROM outbox WHERE kind = 'radio_health'", in: rig.work)
        #expect(health.count >= 2 && health.contains { $0.range(of: #""adverts":[1-9]"#, options: .regularExpression) != nil }, "\(health)")
    }

    /// `waymark record` for a field test without the daemon: the paired
    /// beacon's adverts and gpsd's lines go into a 0600 file whose header has
    /// the pairings, and the file replays to the trip they make.
    @Test func waymarkRecordCapturesWhatItHearsForReplay() async throws {
        let car = try await RecordingRig(pairVehicle: true)
        defer { car.stop() }
        let rig = car.session
        let beacon = try await car.keepBeaconInSight()
        defer { beacon.cancel() }
        let out = rig.work.file("field.wmcap")
        let record = try rig.run(["record", "--out", out, "--duration", "4s"], environment: car.bluez.bus.environment)
        #expect(record.status == 0, "\(record.output)")
        #expect(record.output.contains("adverts captured to \(out)"), "\(record.output)")
        let mode = try FileManager.default.attributesOfItem(atPath: out)[.posixPermissions] as? Int
        #expect(mode == 0o600)

        let reader = try CaptureReader(path: out)
        #expect(reader.header.pairings.contains("ibeacon:") && !reader.header.pairings.contains("\"bindkey\""), "\(reader.header.pairings)")
        #expect(reader.header.config.contains("[Location]"))
        #expect(!reader.header.config.contains("ClientSecretFile"), "secret file names are left out: \(reader.header.config)")
        var (adverts, lines) = (0, 0)
        while let next = reader.next() {
            switch next.body {
            case .advert(_, let sighting) where sighting.address.description == RecordingRig.beacon: adverts += 1
            case .location: lines += 1
            default: break
            }
        }
        #expect(reader.stop == .complete)
        #expect(adverts >= 5 && lines >= 3, "\(adverts) beacon adverts, \(lines) location lines")

        let replay = try rig.run(["--data-dir", rig.work.file("replayed"), "replay", out, "--json"])
        #expect(replay.status == 0, "\(replay.output)")
        let outcome = try JSONSerialization.jsonObject(with: Data(replay.output.split(separator: "\n").last.map(String.init)?.utf8 ?? "".utf8)) as? [String: Any]
        let trips = outcome?["trips"] as? [[String: Any]] ?? []
        #expect(trips.count == 1 && trips.first?["end"] == nil, "an open trip: \(replay.output)")
    }

    static func time(_ value: Any?) -> Double? {
        guard let text = value as? String else { return nil }
        let parser = ISO8601DateFormatter()
        parser.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return (parser.date(from: text) ?? ISO8601DateFormatter().date(from: text))?.timeIntervalSince1970
    }
}
