import Basics
import Foundation
import PeerHarness
import Session
import Storage
import Testing
import Upload

/// A recording, uploading process killed with SIGKILL at random moments
/// while the server injects faults at random. At the end the server holds
/// every sample the process reported committed, once, the broker has had
/// every one at least once, and the outbox is empty.
struct UploadSoakTests {
    @Test func fiftyKillsDuringRecordingAndUploadLoseNothingAndDuplicateNothing() async throws {
        let rig = try await UploadRig()
        defer { rig.stop() }
        let binary = try WaymarkBinary.named("waymark-bench")
        try rig.backend.setFaults(#"{"random":0.2}"#)
        var rng = SplitMix64(seed: 0x50A4)
        var reported: Int64 = 0
        var kills = 0
        var livesThatCommitted = 0
        var alive: Duration = .zero
        func child(_ mode: String) throws -> ChildProcess {
            try ChildProcess(binary, ["--upload-soak", rig.database.path, rig.provider.issuer, rig.backend.baseURL, mode],
                             aptPackage: "(built by swift build)", logPath: rig.directory.file("soak-\(kills)-\(mode).log"))
        }
        while kills < 50 {
            let process = try child("record")
            let lifetime = Duration.milliseconds(Int64.random(in: 80...400, using: &rng))
            try await Task.sleep(for: lifetime)
            process.kill(SIGKILL)
            alive += lifetime
            _ = try process.wait(timeout: 10)
            let before = reported
            for line in process.output.split(separator: "\n") where line.hasPrefix("committed ") {
                if let last = line.split(separator: " ").last.flatMap({ Int64($0) }) { reported = max(reported, last) }
            }
            if reported > before { livesThatCommitted += 1 }
            kills += 1
        }
        let drain = try child("drain")
        #expect(try drain.wait(timeout: 120) == 0, "\(drain.output.suffix(500))")

        let committed = try rig.database.read { try $0.scalar("SELECT seq FROM sqlite_sequence WHERE name = 'outbox'")?.integer ?? 0 }
        let summary = try rig.backend.summary()
        // Not vacuous: most lives were killed after committing, in the
        // middle of recording. (Counted, not timed: a loaded machine starts
        // each child more slowly, and a rate bound made this test flaky.)
        #expect(livesThatCommitted >= 25 && reported >= 500, "\(reported) samples, committed in \(livesThatCommitted) of 50 lives, \(alive) of child lifetime")
        #expect(summary.posts >= 50, "uploads ran while recording")
        #expect(committed >= reported)
        #expect(try rig.backend.missing(upto: Int(committed)).isEmpty)
        #expect(summary.stored == Int(committed), "every committed sample stored once")
        #expect(summary.conflicts == 0, "no sequence number was reused")
        #expect(try Outbox(database: rig.database).status().depth == 0)
    }

    /// The same with the MQTT sink, alone and beside HTTP: the subscriber
    /// (a persistent session, so it misses nothing between kills) has every
    /// committed sequence number at least once.
    @Test(arguments: ["mqtt", "http,mqtt"])
    func killsWithTheMQTTSinkLoseNothing(_ sinks: String) async throws {
        let rig = try await UploadRig()
        defer { rig.stop() }
        let broker = try Mosquitto(directory: rig.directory)
        defer { broker.stop() }
        let subscriber = try broker.subscriber(["soak/+/samples"], id: "soak-subscriber")
        defer { subscriber.stop() }
        let binary = try WaymarkBinary.named("waymark-bench")
        try rig.backend.setFaults(#"{"random":0.2}"#)
        var rng = SplitMix64(seed: 0x50A5)
        var reported: Int64 = 0
        let mqtt = "\(broker.port):\(broker.username):\(broker.password)"
        func child(_ mode: String, _ n: Int) throws -> ChildProcess {
            try ChildProcess(binary, ["--upload-soak", rig.database.path, rig.provider.issuer, rig.backend.baseURL, mode, sinks, mqtt],
                             aptPackage: "(built by swift build)", logPath: rig.directory.file("soak-\(n)-\(mode).log"))
        }
        for kill in 0..<25 {
            let process = try child("record", kill)
            try await Task.sleep(for: .milliseconds(Int64.random(in: 80...400, using: &rng)))
            process.kill(SIGKILL)
            _ = try process.wait(timeout: 10)
            for line in process.output.split(separator: "\n") where line.hasPrefix("committed ") {
                if let last = line.split(separator: " ").last.flatMap({ Int64($0) }) { reported = max(reported, last) }
            }
        }
        let drain = try child("drain", 25)
        #expect(try drain.wait(timeout: 120) == 0, "\(drain.output.suffix(500))")
        let committed = try rig.database.read { try $0.scalar("SELECT seq FROM sqlite_sequence WHERE name = 'outbox'")?.integer ?? 0 }
        #expect(committed >= reported && reported > 0)
        try await Task.sleep(for: .milliseconds(500))
        var seen: Set<Int64> = []
        for line in subscriber.output.split(separator: "\n") {
            guard let json = line.split(separator: " ", maxSplits: 1).last,
                  let batch = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any],
                  let first = batch["first_seq"] as? Int, let last = batch["last_seq"] as? Int else { continue }
            seen.formUnion(Int64(first)...Int64(last))
        }
        let missing = Set(1...max(committed, 1)).subtracting(seen)
        #expect(committed > 0 && missing.isEmpty, "\(missing.count) of \(committed) committed samples never reached the broker: \(missing.sorted().prefix(20))")
        if sinks.contains("http") {
            let summary = try rig.backend.summary()
            #expect(try rig.backend.missing(upto: Int(committed)).isEmpty)
            #expect(summary.stored == Int(committed) && summary.conflicts == 0, "every committed sample stored once")
        }
        #expect(try Outbox(database: rig.database).status().depth == 0)
    }
}
