import Basics
import Foundation
import PeerHarness
import Testing

/// Reusable refresh tokens and `kill -9` at any moment: the session is
/// never lost. Tokens live 3 s here, so the daemon refreshes every couple
/// of seconds, and 50 kills land before, during and after refreshes.
@Suite(.serialized)
struct SessionKillSoakTests {
    @Test func fiftyKillsAtRandomPointsDuringRefreshesNeverLoseTheSession() async throws {
        let car = try await RecordingRig(gpsdRunning: false, withReceiver: false, accessTokenSeconds: 3)
        defer { car.stop() }
        let rig = car.session
        let tokenAtStart = try Self.accessToken(rig)
        var random = SplitMix64(seed: 0x50A4_0011)
        var refreshedBeforeKill = 0
        for round in 0..<50 {
            let daemon = try ChildProcess(try WaymarkBinary.path, rig.arguments + ["run"], aptPackage: "(built by swift build)",
                                          environment: car.bluez.bus.environment, logPath: rig.work.file("soak-\(round).log"))
            try await Task.sleep(for: .milliseconds(Int64.random(in: 100...2600, using: &random)))
            daemon.kill(SIGKILL)
            _ = try daemon.wait(timeout: 10)
            if daemon.output.contains("not authorized") {
                Issue.record("round \(round): \(daemon.output.suffix(800))")
                break
            }
            if try Self.accessToken(rig) != tokenAtStart { refreshedBeforeKill += 1 }
        }
        let whoami = try rig.run(["whoami", "--json"])
        #expect(whoami.status == 0, "\(whoami.output)")
        #expect(refreshedBeforeKill > 0, "the daemons refreshed along the way")
        // A last daemon carries on refreshing from what the killed ones left.
        let last = try await car.startDaemon()
        defer { last.stop() }
        let before = try Self.accessToken(rig)
        try await withDeadline(.seconds(15), "a refresh after the soak") {
            while try Self.accessToken(rig) == before { try await Task.sleep(for: .milliseconds(200)) }
        }
        #expect(try rig.run(["whoami"]).status == 0)
    }

    static func accessToken(_ rig: SessionCommandTests.Rig) throws -> String {
        let path = rig.work.file("data/waymark.db")
        let process = try ChildProcess("sqlite3", [path, "SELECT access_token FROM session"], aptPackage: "sqlite3",
                                       logPath: rig.work.file("sqlite-\(UUID().uuidString.prefix(6)).log"))
        _ = try process.wait(timeout: 10)
        return process.output
    }
}
