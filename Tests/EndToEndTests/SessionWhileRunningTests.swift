import Foundation
import PeerHarness
import Testing

/// The running daemon hears its session: refusals, settings and fleet
/// commands take effect during a run, not at the next restart.
@Suite(.serialized)
struct SessionWhileRunningTests {
    static func status(_ car: RecordingRig) throws -> [String: Any] {
        let result = try car.session.run(["status", "--json"], environment: car.bluez.bus.environment)
        return try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any], "\(result.output)")
    }

    static func running(_ car: RecordingRig) throws -> Bool? {
        (try status(car)["recording"] as? [String: Any])?["running"] as? Bool
    }

    static func events(_ rig: SessionCommandTests.Rig) throws -> String { try rig.run(["events", "--json"]).output }

    /// Settings and a lock sent by the fleet arrive within one interval; the
    /// lock stops recording at once and keeps the intent, and a login resumes.
    @Test func settingsAndALockFromTheFleetArriveWhileRunningAndALoginResumes() async throws {
        let car = try await RecordingRig(config: "[Backend]\nSettingsInterval = 2s\n")
        defer { car.stop() }
        let rig = car.session
        let daemon = try await car.startDaemon()
        defer { daemon.stop() }
        try await RecordingRig.waitFor("recording: running", in: daemon)

        try rig.backend.setSettings(#"{"settings":{"gap_threshold_s":120},"commands":[]}"#)
        try await RecordingRig.waitFor("the fleet's settings changed", in: daemon)
        try rig.backend.setSettings(#"{"settings":{"gap_threshold_s":120},"commands":[{"id":"lock-7","type":"lock"}]}"#)
        try await RecordingRig.waitFor("not authorized (lockedOut)", in: daemon)
        try await withDeadline(.seconds(10), "the runtime to stop") {
            while try Self.running(car) != false { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect((try Self.status(car)["recording"] as? [String: Any])?["intent"] as? String == "armed", "the intent stays")
        let events = try Self.events(rig)
        for kind in ["remoteSettingsUpdated", "policyUpdated", "notAuthorized"] { #expect(events.contains(#""kind":"\#(kind)""#), "\(kind)") }
        #expect(events.contains("lockedOut"))

        let offset = daemon.output.count
        let login = try rig.run(["login", "--username", Glewlwyd.username, "--password-stdin"], stdin: Glewlwyd.password + "\n",
                                environment: car.bluez.bus.environment)
        #expect(login.status == 0, "\(login.output)")
        try await RecordingRig.waitFor("recording: running", in: daemon, after: offset)
        #expect(daemon.isRunning)
    }

    /// The provider revokes the session mid-run: the daemon's own refresh is
    /// refused, and recording stops then, not at some later wake-up.
    @Test func aRefreshRefusedMidRunStopsRecordingAtOnce() async throws {
        let car = try await RecordingRig(accessTokenSeconds: 5)
        defer { car.stop() }
        let rig = car.session
        let daemon = try await car.startDaemon()
        defer { daemon.stop() }
        try await RecordingRig.waitFor("recording: running", in: daemon)
        try rig.provider.revokeAll()
        // The 5 s token is refreshed a second before it expires, and refused.
        try await RecordingRig.waitFor("not authorized (refreshRejected)", in: daemon)
        try await withDeadline(.seconds(5), "the runtime to stop") {
            while try Self.running(car) != false { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(try Self.events(rig).contains("refreshRejected"))
        #expect(daemon.isRunning, "the daemon waits for a login; it does not exit")
    }
}
