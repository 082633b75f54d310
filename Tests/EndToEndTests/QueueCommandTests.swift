import Basics
import DBus
import Foundation
import PeerHarness
import Storage
import Store
import Telemetry
import Testing
import Upload

/// The daemon flushes what a previous run left queued as soon as the
/// persisted session is authorized, and `waymark queue` shows and drives it.
@Suite(.serialized)
struct QueueCommandTests {
    @Test func theDaemonFlushesPendingSamplesAtLaunchAndQueueFlushAsksItForMore() async throws {
        let rig = try SessionCommandTests.Rig()
        defer { rig.stop() }
        let bus = try PrivateBus()
        defer { bus.stop() }
        #expect(try rig.run(["login", "--username", Glewlwyd.username, "--password-stdin"], stdin: Glewlwyd.password + "\n").status == 0)

        // Samples recorded by an earlier run that died before uploading them.
        let outbox = Outbox(database: try GatewayStore(path: rig.work.file("data/waymark.db")).database)
        try outbox.append((0..<300).map { Sample(time: 1_796_000_000 + Double($0), payload: .beacon(rssi: $0)) })
        let queued = try rig.run(["queue", "--json"])
        let status = try #require(try JSONSerialization.jsonObject(with: Data(queued.output.utf8)) as? [String: Any])
        #expect(status["depth"] as? Int == 300 && status["dead_letters"] as? Int == 0)

        let daemon = try await Self.startDaemon(rig, on: bus)
        defer { daemon.stop() }
        try await withDeadline(.seconds(30), "the pending flush") {
            while try rig.backend.summary().stored < 300 { try await Task.sleep(for: .milliseconds(50)) }
        }

        try outbox.append((300..<310).map { Sample(time: 1_796_000_000 + Double($0), payload: .beacon(rssi: $0)) })
        let flush = try rig.run(["queue", "flush"], environment: bus.environment)
        #expect(flush.status == 0, "\(flush.output)")
        try await withDeadline(.seconds(30), "the asked-for flush") {
            while try rig.backend.summary().stored < 310 { try await Task.sleep(for: .milliseconds(50)) }
        }
        #expect(try rig.backend.missing(upto: 310).isEmpty)
        let after = try rig.run(["queue"])
        #expect(after.output.contains("queued:       0 samples") && !after.output.contains("last upload:  never"))

        daemon.kill(SIGTERM)
        #expect(try daemon.wait(timeout: 5) == 0)
    }
}

extension QueueCommandTests {
    /// The provider revokes the session while the daemon runs: its next
    /// refresh is refused, uploads stop and the samples stay. A new
    /// `waymark login` tells the daemon, which flushes everything.
    @Test func afterARefusedRefreshNothingUploadsUntilANewLoginThenEverythingDoes() async throws {
        let rig = try SessionCommandTests.Rig(accessTokenSeconds: 5)
        defer { rig.stop() }
        let bus = try PrivateBus()
        defer { bus.stop() }
        let login = ["login", "--username", Glewlwyd.username, "--password-stdin"]
        #expect(try rig.run(login, stdin: Glewlwyd.password + "\n").status == 0)
        let daemon = try await Self.startDaemon(rig, on: bus)
        defer { daemon.stop() }

        try rig.provider.revokeAll()
        try await withDeadline(.seconds(20), "the refused refresh") {
            while !daemon.output.contains("refused the refresh token") { try await Task.sleep(for: .milliseconds(100)) }
        }
        let outbox = Outbox(database: try GatewayStore(path: rig.work.file("data/waymark.db")).database)
        try outbox.append((0..<50).map { Sample(time: 1_796_000_000 + Double($0), payload: .beacon(rssi: $0)) })
        _ = try rig.run(["queue", "flush"], environment: bus.environment)
        try await Task.sleep(for: .seconds(1))
        #expect(try rig.backend.summary().posts == 0)
        // The 50, plus the daemon's own event samples (the missing location source).
        #expect(try outbox.status().depth >= 50)

        #expect(try rig.run(login, stdin: Glewlwyd.password + "\n", environment: bus.environment).status == 0)
        try await withDeadline(.seconds(30), "the flush after login") {
            while try rig.backend.summary().stored < 50 || outbox.status().depth > 0 { try await Task.sleep(for: .milliseconds(100)) }
        }
        daemon.kill(SIGTERM)
        #expect(try daemon.wait(timeout: 5) == 0)
    }
}

extension QueueCommandTests {
    /// `waymark run` on a private bus, returned once it owns its name.
    static func startDaemon(_ rig: SessionCommandTests.Rig, on bus: PrivateBus) async throws -> ChildProcess {
        let connection = try await DBusConnection.connect(address: bus.address)
        defer { connection.close() }
        let owners = try await connection.ownerChanges(of: "io.waymark.Gateway1")
        _ = try await owners.next(within: .seconds(20), "initial owner")
        let daemon = try ChildProcess(try WaymarkBinary.path, rig.arguments + ["run"], aptPackage: "(built by swift build)",
                                      environment: bus.environment, logPath: rig.work.file("run.log"))
        _ = try await owners.next(within: .seconds(20), "the daemon on the bus")
        return daemon
    }
}

extension QueueCommandTests {
    /// The backend is gone long enough for the backoff to grow; it comes
    /// back, and NetworkManager's "connected" makes the daemon upload at once.
    @Test func networkManagerReportingConnectivityCutsTheBackoffShort() async throws {
        let rig = try SessionCommandTests.Rig()
        defer { rig.stop() }
        let bus = try PrivateBus()
        defer { bus.stop() }
        let network = try await NetworkManagerMock(on: bus)
        defer { network.process.stop() }
        try (String(contentsOfFile: rig.work.file("waymark.conf"), encoding: .utf8) + "\n[Upload]\nRetryCap = 10min\n")
            .write(toFile: rig.work.file("waymark.conf"), atomically: true, encoding: .utf8)
        #expect(try rig.run(["login", "--username", Glewlwyd.username, "--password-stdin"], stdin: Glewlwyd.password + "\n").status == 0)
        let daemon = try await Self.startDaemon(rig, on: bus)
        defer { daemon.stop() }

        rig.backend.stop()
        let outbox = Outbox(database: try GatewayStore(path: rig.work.file("data/waymark.db")).database)
        try outbox.append((0..<20).map { Sample(time: 1_796_000_000 + Double($0), payload: .beacon(rssi: $0)) })
        // Each forced attempt fails and doubles the backoff's ceiling.
        for _ in 0..<9 {
            _ = try rig.run(["queue", "flush"], environment: bus.environment)
            try await Task.sleep(for: .milliseconds(150))
        }
        #expect(try outbox.status().lastError != nil)

        let back = try IngestServer(directory: rig.work, port: rig.backend.port)
        defer { back.stop() }
        let connection = try await DBusConnection.connect(address: bus.address)
        defer { connection.close() }
        try await network.setState(70, via: connection)
        try await withDeadline(.seconds(10), "the upload after the network came back") {
            while try back.summary().stored < 20 { try await Task.sleep(for: .milliseconds(50)) }
        }
        #expect(daemon.output.contains("network: connected"))
        daemon.kill(SIGTERM)
        #expect(try daemon.wait(timeout: 5) == 0)
    }
}
