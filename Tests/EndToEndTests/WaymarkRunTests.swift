import DBus
import Foundation
import PeerHarness
import Testing

/// Runs the real `waymark` binary against a private bus with the BlueZ mock.
@Suite(.serialized)
struct WaymarkRunTests {
    /// A config whose location source is a closed port, so `location` is missing.
    static let config = "[Location]\nSource = gpsd://127.0.0.1:1\n"

    @Test func runReportsRequirementsFollowsTheAdapterAndStopsCleanlyOnSIGTERM() async throws {
        let rig = try await BlueZTestRig()
        defer { rig.stop() }
        let (bus, mock, connection) = (rig.bus, rig.mock, rig.connection)
        try await rig.addAdapter()
        let work = try TemporaryDirectory()
        defer { work.remove() }
        let daemon = try await startDaemon(on: connection, bus: bus, in: work)
        defer { daemon.stop() }

        #expect(try await requirements(connection) == ["location"])

        // The adapter goes away: the daemon sees it from the bus, without polling.
        let changes = try await connection.signals(matching: MatchRule(
            interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged", path: "/io/waymark/Gateway"))
        try await mock.control(connection, "RemoveAdapter", [.string("hci0")])
        let change = try await changes.next(within: .seconds(20), "Requirements change")
        #expect(try change.arguments()[1].stringKeyed?["Requirements"]?.array == [.string("bluetooth-adapter"), .string("location")])

        try await mock.control(connection, "AddAdapter", [.string("hci0"), .string("car")])
        let back = try await changes.next(within: .seconds(20), "Requirements change")
        #expect(try back.arguments()[1].stringKeyed?["Requirements"]?.array == [.string("location")])

        let stopAt = Date()
        daemon.kill(SIGTERM)
        #expect(try daemon.wait(timeout: 5) == 0)
        #expect(Date().timeIntervalSince(stopAt) < 2)
        let log = daemon.output
        #expect(log.contains("<4>requirement missing: bluetooth-adapter"))
        #expect(log.contains("<5>stopping on signal 15"))

        // With the daemon gone, status reads the last requirements from the store.
        let status = try WaymarkBinary.run(
            ["status", "--json", "--config", work.file("w.conf"), "--data-dir", work.file("data")],
            environment: bus.environment, in: work)
        #expect(status.status == 0)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(status.output.utf8)) as? [String: Any])
        #expect((json["daemon"] as? [String: Any])?["running"] as? Bool == false)
        let requirements = try #require(json["requirements"] as? [String: Any])
        #expect(requirements["missing"] as? [String] == ["location"])
        #expect(requirements["source"] as? String == "store")
    }

    @Test(arguments: [
        (PrivateBus.Policy.allowAll, false, "bluetooth-service"),
        (PrivateBus.Policy.denyBlueZ, true, "bluetooth-access"),
        (PrivateBus.Policy.allowAll, true, "bluetooth-adapter"),
    ])
    func missingBluetoothRequirementsAreNamed(_ policy: PrivateBus.Policy, _ withMock: Bool, _ expected: String) async throws {
        let bus = try PrivateBus(policy: policy)
        defer { bus.remove() }
        let mock = withMock ? try await BlueZMock(on: bus) : nil
        defer { withExtendedLifetime(mock) {} }
        let work = try TemporaryDirectory()
        defer { work.remove() }
        let connection = try await DBusConnection.connect(address: bus.address)
        defer { connection.close() }
        let daemon = try await startDaemon(on: connection, bus: bus, in: work)
        defer { daemon.stop() }
        #expect(try await requirements(connection) == [expected, "location"])
    }

    @Test func aBadConfigExitsWith78AndOneLineNamingFileLineAndKey() throws {
        let work = try TemporaryDirectory()
        defer { work.remove() }
        try "[Recording]\nGapThreshold = 1min\n\nBeaconLostTimeout = never\n".write(toFile: work.file("w.conf"), atomically: true, encoding: .utf8)
        let result = try WaymarkBinary.run(["run", "--config", work.file("w.conf"), "--data-dir", work.file("data")], in: work)
        #expect(result.status == 78)
        let lines = result.output.split(separator: "\n")
        #expect(lines.count == 1)
        #expect(lines.first?.hasPrefix("<3>\(work.file("w.conf")):4: Recording.BeaconLostTimeout: ") == true)

        let missing = try WaymarkBinary.run(["status", "--config", work.file("absent.conf")], in: work)
        #expect(missing.status == 78)
        #expect(missing.output.contains("absent.conf"))
    }

    @Test(arguments: [
        ("[Bluetooth]\nColour = blue\n", "2: Bluetooth.Colour: unknown key"),
        ("[Nowhere]\nKey = 1\n", "2: Nowhere.Key: unknown section"),
        ("[Upload]\nBatchSize = lots\n", "2: Upload.BatchSize: expected a whole number"),
        ("[Session]\nIssuer = http://example.com\n", "2: Session.Issuer: must use https"),
        ("[Location\n", "1: malformed section header"),
        ("[Logging]\nLevel = info\nLevel = debug\n", "3: Logging.Level: set twice"),
    ])
    func everyKindOfConfigErrorExitsWith78(_ text: String, _ expected: String) throws {
        let work = try TemporaryDirectory()
        defer { work.remove() }
        try text.write(toFile: work.file("w.conf"), atomically: true, encoding: .utf8)
        for command in ["run", "status", "config"] {
            let result = try WaymarkBinary.run([command, "--config", work.file("w.conf"), "--data-dir", work.file("data")], in: work)
            #expect(result.status == 78, "\(command)")
            #expect(result.output.hasPrefix("<3>\(work.file("w.conf")):\(expected)"), "\(command): \(result.output)")
            #expect(result.output.split(separator: "\n").count == 1)
        }
    }

    @Test func usageErrorsExitWith64AndHelpWith0() throws {
        let work = try TemporaryDirectory()
        defer { work.remove() }
        #expect(try WaymarkBinary.run(["frobnicate"], in: work).status == 64)
        #expect(try WaymarkBinary.run(["status", "--frob"], in: work).status == 64)
        #expect(try WaymarkBinary.run(["--config"], in: work).status == 64)
        let help = try WaymarkBinary.run(["--help"], in: work)
        #expect(help.status == 0)
        #expect(help.output.contains("run"))
        let runHelp = try WaymarkBinary.run(["run", "--help"], in: work)
        #expect(runHelp.status == 0)
        #expect(runHelp.output.hasPrefix("usage: waymark"))
        let version = try WaymarkBinary.run(["version"], in: work)
        #expect(version.output.hasPrefix("waymark "))
    }

    /// Starts `waymark run` with `config` and waits until it is on the bus.
    private func startDaemon(on connection: DBusConnection, bus: PrivateBus, in work: TemporaryDirectory) async throws -> ChildProcess {
        try Self.config.write(toFile: work.file("w.conf"), atomically: true, encoding: .utf8)
        let owners = try await connection.ownerChanges(of: "io.waymark.Gateway1")
        _ = try await owners.next(within: .seconds(20), "initial owner")
        let daemon = try ChildProcess(
            try WaymarkBinary.path, ["run", "--config", work.file("w.conf"), "--data-dir", work.file("data")],
            aptPackage: "(built by swift build)", environment: bus.environment, logPath: work.file("run.log"))
        _ = try await owners.next(within: .seconds(10), "the daemon on the bus")
        return daemon
    }

    private func requirements(_ connection: DBusConnection) async throws -> [String] {
        let reply = try await connection.call(
            destination: "io.waymark.Gateway1", path: "/io/waymark/Gateway", interface: "org.freedesktop.DBus.Properties",
            method: "Get", arguments: [.string("io.waymark.Gateway1"), .string("Requirements")])
        return reply.first?.array?.compactMap(\.string) ?? []
    }
}
