@testable import CLI
import Command
import Config
import Control
import DBus
@testable import Daemon
import Foundation
import PeerHarness
import Testing
import Vocabulary

/// `waymark health`, the boot check of fleet update tools: its verdict from
/// the daemon's facts, then against a real daemon in each unhealthy case,
/// and the greenboot and Mender scripts shipped in hardware/fleet.
@Suite(.serialized)
struct HealthCommandTests {
    static var limits: Configuration.Health {
        var limits = Configuration().health
        (limits.advertSilence, limits.queueAge) = (.seconds(60), .seconds(3600))
        return limits
    }

    static var healthy: HealthFacts {
        var facts = HealthFacts()
        (facts.ready, facts.storeWritable, facts.integrity, facts.authorized) = (true, true, "ok", true)
        (facts.armed, facts.running, facts.silenceSeconds, facts.oldestQueuedSeconds) = (true, true, 5, 30)
        return facts
    }

    @Test func eachProblemGivesItsOwnCodeInTheOrderAFixTakesThem() {
        func verdict(_ change: (inout HealthFacts) -> Void) -> ExitCode {
            var facts = Self.healthy
            change(&facts)
            return HealthCommand.judge(.success(facts), Self.limits).0
        }
        #expect(HealthCommand.judge(.failure(.notRunning), Self.limits).0 == .unhealthyDaemon)
        #expect(verdict { _ in } == .ok)
        #expect(verdict { $0.ready = false } == .unhealthyDaemon)
        #expect(verdict { $0.storeWritable = false } == .unhealthyStore)
        #expect(verdict { $0.integrity = "*** in database main ***\nPage 7: btreeInitPage() returns error code 11" } == .unhealthyStore)
        #expect(verdict { $0.authorized = false } == .unhealthySession)
        #expect(verdict { $0.missing = [.adapterPowered] } == .unhealthyRadio)
        #expect(verdict { $0.needsPowerCycle = true } == .unhealthyRadio)
        #expect(verdict { $0.silenceSeconds = 61 } == .unhealthyRadio)
        #expect(verdict { $0.oldestQueuedSeconds = 3601 } == .unhealthyQueue)
        // Disarmed, the radio is not judged; a missing gpsd is not the radio's.
        #expect(verdict { ($0.armed, $0.silenceSeconds, $0.missing) = (false, 1e6, [.adapterPowered]) } == .ok)
        #expect(verdict { $0.missing = [.location] } == .ok)
        // The first problem wins: a store that takes no write before a stuck queue.
        #expect(verdict { ($0.storeWritable, $0.oldestQueuedSeconds) = (false, 1e6) } == .unhealthyStore)
    }

    /// A daemon that refuses the caller, or does not answer, is not "not
    /// running": each says what it is, with its own fix.
    @Test func aRefusalOrASilenceFromTheDaemonIsNotCalledNotRunning() {
        let refused = HealthCommand.judge(.failure(DaemonUnreachable(.remote(.accessDenied, message: "Rejected send message"))), Self.limits)
        #expect(refused.0 == .unhealthyDaemon && refused.1.contains("refuses this user") && !refused.1.contains("not running"), "\(refused.1)")
        let silent = HealthCommand.judge(.failure(DaemonUnreachable(.remote(.noReply, message: "Did not receive a reply"))), Self.limits)
        #expect(silent.1.contains("did not answer in time") && !silent.1.contains("not running"), "\(silent.1)")
        #expect(HealthCommand.judge(.failure(DaemonUnreachable(.remote(.serviceUnknown, message: ""))), Self.limits).1.contains("not running"))
    }

    @Test func aReplyWithMissingOrMistypedMembersReadsAsUnhealthy() {
        let facts = HealthFacts(dbus: .vardict(["Ready": .string("yes"), "SilenceSeconds": .double(.nan), "Integrity": .string("ok")]))
        #expect(!facts.ready && facts.silenceSeconds == 0 && !facts.storeWritable)
        #expect(HealthCommand.judge(.success(facts), Self.limits).0 == .unhealthyDaemon)
        #expect(HealthFacts(dbus: Self.healthy.dbus) == Self.healthy)
    }

    static func health(_ car: RecordingRig) throws -> (status: Int32, output: String) {
        let result = try car.session.run(["health"], environment: car.bluez.bus.environment)
        return (result.status, result.output.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    @Test func noDaemonIsCode10AndARunningOneIsHealthyUntilItsSessionEnds() async throws {
        let car = try await RecordingRig()
        defer { car.stop() }
        let absent = try Self.health(car)
        #expect(absent.status == 10 && absent.output.hasPrefix("unhealthy: daemon: not running"), "\(absent)")
        let daemon = try await car.startRecording()
        defer { daemon.stop() }
        let healthy = try Self.health(car)
        #expect(healthy.status == 0 && healthy.output == "healthy", "\(healthy)")
        let json = try car.session.run(["health", "--json"], environment: car.bluez.bus.environment)
        let report = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any], "\(json.output)")
        #expect(report["healthy"] as? Bool == true && (report["facts"] as? [String: Any])?["integrity"] as? String == "ok", "\(report)")

        _ = try car.session.run(["logout"], environment: car.bluez.bus.environment)
        try await RecordingRig.waitFor("not authorized", in: daemon)
        let loggedOut = try Self.health(car)
        #expect(loggedOut.status == 12 && loggedOut.output.hasPrefix("unhealthy: session:"), "\(loggedOut)")
    }

    @Test func anArmedRadioThatHearsNothingForAdvertSilenceIsCode13() async throws {
        let car = try await RecordingRig(config: "[Health]\nAdvertSilence = 2s\n")
        defer { car.stop() }
        let daemon = try await car.startRecording()
        defer { daemon.stop() }
        try await Task.sleep(for: .seconds(3))
        let silent = try Self.health(car)
        #expect(silent.status == 13 && silent.output.hasPrefix("unhealthy: radio: no advert for"), "\(silent)")
        let beacon = try await car.keepBeaconInSight()
        defer { beacon.cancel() }
        // Healthy once the next advert is in: the time that takes is the scanner's, not the check's.
        try await withDeadline(.seconds(15), "health to be 0 with the beacon in sight") {
            while try Self.health(car).status != 0 { try await Task.sleep(for: .milliseconds(200)) }
        }
    }

    /// The ingest gone: health samples queue up, and the oldest outgrows QueueAge.
    @Test func aQueueThatDoesNotDrainIsCode14() async throws {
        let car = try await RecordingRig(config: "[Bluetooth]\nHealthInterval = 1s\n\n[Health]\nQueueAge = 2s\n")
        defer { car.stop() }
        car.session.backend.stop()
        let daemon = try await car.startRecording()
        defer { daemon.stop() }
        try await Task.sleep(for: .seconds(4))
        let stuck = try Self.health(car)
        #expect(stuck.status == 14 && stuck.output.hasPrefix("unhealthy: queue:"), "\(stuck)")
    }

    /// The store on a small tmpfs, filled while the daemon runs: the
    /// health check's own write fails, as the next sample's would.
    @Test func aStoreThatTakesNoWriteIsCode11() async throws {
        let car = try await RecordingRig()
        defer { car.stop() }
        let data = car.session.work.file("data")
        try FileManager.default.moveItem(atPath: data, toPath: data + ".disk")
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: false)
        try Self.sh("mount -t tmpfs -o size=8m,mode=0700 waymark-full '\(data)' && cp -a '\(data).disk/.' '\(data)/'")
        defer { _ = try? Self.sh("umount -l '\(data)'") }
        let daemon = try await car.startRecording()
        defer { daemon.stop() }
        #expect(try Self.health(car).status == 0)
        _ = try? Self.sh("head -c 16M /dev/zero > '\(data)/filler'")
        let full = try Self.health(car)
        #expect(full.status == 11 && full.output.hasPrefix("unhealthy: store: a write failed"), "\(full)")
    }

    /// The shipped greenboot check and Mender state script, run as the tools
    /// run them, against a healthy daemon and with none.
    @Test func theGreenbootAndMenderScriptsPassAHealthyGatewayAndFailOrRetryOtherwise() async throws {
        let car = try await RecordingRig()
        defer { car.stop() }
        // The scripts call `waymark`; this one passes the rig's config and store.
        let bin = car.session.work.file("bin")
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: false)
        try "#!/bin/sh\nexec '\(try WaymarkBinary.path)' \(car.session.arguments.map { "'\($0)'" }.joined(separator: " ")) \"$@\"\n"
            .write(toFile: bin + "/waymark", atomically: true, encoding: .utf8)
        chmod(bin + "/waymark", 0o755)
        func script(_ name: String) throws -> Int32 {
            var environment = car.bluez.bus.environment
            environment["PATH"] = bin + ":/usr/bin:/bin"
            let process = try ChildProcess("/bin/sh", [Checkout.path("hardware/fleet/" + name)], aptPackage: "dash",
                                           environment: environment, logPath: car.session.work.file(name + ".log"))
            return try process.wait(timeout: 180)
        }
        #expect(try script("mender-ArtifactCommit_Enter_50_waymark") == 21, "no daemon yet: Mender is asked to retry")
        let daemon = try await car.startRecording()
        defer { daemon.stop() }
        #expect(try script("greenboot-50-waymark.sh") == 0)
        #expect(try script("mender-ArtifactCommit_Enter_50_waymark") == 0)
        _ = try car.session.run(["logout"], environment: car.bluez.bus.environment)
        try await RecordingRig.waitFor("not authorized", in: daemon)
        #expect(try script("greenboot-50-waymark.sh") == 1)
        #expect(try script("mender-ArtifactCommit_Enter_50_waymark") == 1)
    }

    @discardableResult
    static func sh(_ command: String) throws -> Int32 {
        let work = try TemporaryDirectory("waymark-sh")
        defer { work.remove() }
        let process = try ChildProcess("/bin/sh", ["-c", command], aptPackage: "dash", logPath: work.file("sh.log"))
        let status = try process.wait(timeout: 60)
        guard status == 0 else { throw PeerError.startFailed(command, output: process.output) }
        return status
    }
}
