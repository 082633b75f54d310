import Advertisements
import DBus
import Foundation
import PeerHarness
import Testing

/// `waymark run` with every peer real: BlueZ (python-dbusmock) on a private
/// bus, gpsd reading a receiver on a pty, glewlwyd, and the ingest server.
@Suite(.serialized)
struct RecordingEndToEndTests {
    /// Seed step 1: log in; the paired beacon appears; a trip starts; fixes
    /// are recorded; the beacon goes; the trip ends and is uploaded.
    @Test func aTripStartsWithTheBeaconRecordsFixesAndEndsWhenItLeaves() async throws {
        let car = try await RecordingRig(
            config: "[Recording]\nBeaconLostTimeout = 1s\nReopenWindow = 2s\nFixInterval = 200ms\nBeaconInterval = 500ms\n", pairVehicle: true)
        defer { car.stop() }
        let (rig, bluez) = (car.session, car.bluez)
        let daemon = try await car.startAndDrive(seconds: 3)
        defer { daemon.stop() }
        #expect(daemon.output.contains("started"), "\(daemon.output.suffix(2000))")
        let properties = try await bluez.connection.call(
            destination: "io.waymark.Gateway1", path: "/io/waymark/Gateway", interface: "org.freedesktop.DBus.Properties",
            method: "GetAll", arguments: [.string("io.waymark.Gateway1")]).first?.stringKeyed
        #expect(properties?["Armed"]?.bool == true && properties?["Running"]?.bool == true)
        #expect(properties?["Trip"]?.string?.hasPrefix("trip-") == true)
        #expect(properties?["LastFix"]?.string?.contains(#""lat":48.217558333"#) == true)
        // The beacon goes quiet: the trip ends once the reopen window has passed.
        try await withDeadline(.seconds(20), "the trip to end") {
            while !daemon.output.contains("ended") { try await Task.sleep(for: .milliseconds(100)) }
        }
        let trips = try rig.run(["trips", "--json"])
        let list = try #require(try JSONSerialization.jsonObject(with: Data(trips.output.utf8)) as? [[String: Any]])
        #expect(list.count == 1 && list.first?["end_reason"] as? String == "beaconLost")
        let track = try rig.run(["export", "--trip", try #require(list.first?["id"] as? String), "--format", "csv"])
        #expect(track.output.split(separator: "\n").filter { $0.contains("48.217558333") }.count >= 3, "\(track.output)")

        // The trip's end flushes the queue: start and end events, fixes and beacon samples.
        try await withDeadline(.seconds(20), "the upload") {
            while try rig.backend.summary().stored < 6 { try await Task.sleep(for: .milliseconds(100)) }
        }
        let kinds = try rig.backend.summary().kinds
        #expect(kinds["event"] == 2 && (kinds["fix"] ?? 0) >= 3 && (kinds["beacon"] ?? 0) >= 2, "\(kinds)")
        let events = try rig.run(["events", "--json"])
        #expect(events.output.contains(#""kind":"tripStarted""#) && events.output.contains(#""kind":"tripEnded""#))
        let queue = try rig.run(["queue", "--json"])
        let status = try #require(try JSONSerialization.jsonObject(with: Data(queue.output.utf8)) as? [String: Any])
        #expect(status["depth"] as? Int == 0)
        daemon.kill(SIGTERM)
        #expect(try daemon.wait(timeout: 5) == 0)
    }
}

extension RecordingEndToEndTests {
    /// Seed steps 3 and 5: `kill -9`, then a restart re-arms with no login
    /// and reports the dead time as a gap; after `waymark logout` a restart
    /// does not arm, and `status` says why.
    @Test func aKilledDaemonReArmsByItselfAndAfterLogoutItDoesNot() async throws {
        let car = try await RecordingRig(config: "[Recording]\nGapThreshold = 1s\n")
        defer { car.stop() }
        let (rig, bluez) = (car.session, car.bluez)
        let first = try await car.startDaemon()
        try await RecordingRig.waitFor("recording: running", in: first)
        // Let the heartbeat be stored, then kill without warning.
        try await Task.sleep(for: .seconds(5.5))
        first.kill(SIGKILL)
        _ = try first.wait(timeout: 5)
        try await Task.sleep(for: .seconds(2))

        let second = try await car.startDaemon()
        try await RecordingRig.waitFor("recording: running", in: second)
        #expect(second.output.contains("telemetry gap from"), "\(second.output.suffix(1500))")
        #expect(!second.output.contains("not authorized"), "no login was needed")
        second.kill(SIGTERM)
        #expect(try second.wait(timeout: 5) == 0)

        #expect(try rig.run(["logout"]).status == 0)
        let third = try await car.startDaemon()
        defer { third.stop() }
        try await Task.sleep(for: .seconds(1))
        #expect(!third.output.contains("recording: running"))
        let status = try rig.run(["status"], environment: bluez.bus.environment)
        #expect(status.output.contains("session:      not logged in"), "\(status.output)")
        #expect(status.output.contains("recording:    disarmed"))
        third.kill(SIGTERM)
        #expect(try third.wait(timeout: 5) == 0)
    }
}

extension RecordingEndToEndTests {
    /// Armed with no gpsd: requirements missing [location]; gpsd starts: all
    /// restored and recording runs. The adapter removed: lost while running,
    /// intent still armed; back: running again, and the gap is reported.
    @Test func requirementsMissingLostAndRestoredDriveTheRuntime() async throws {
        let car = try await RecordingRig(config: "[Recording]\nGapThreshold = 1s\n", gpsdRunning: false)
        defer { car.stop() }
        let (rig, bluez) = (car.session, car.bluez)
        let daemon = try await car.startDaemon()
        defer { daemon.stop() }
        func waitFor(_ text: String, after offset: Int = 0) async throws { try await RecordingRig.waitFor(text, in: daemon, after: offset) }
        try await waitFor("recording: requirements missing: location")
        #expect(!daemon.output.contains("recording: running"))

        try car.startGPSD()
        try await waitFor("recording: requirements missing: none, all restored")
        try await waitFor("recording: running")
        // status asks the running daemon how it scans, and with which adapter.
        let scanning = try rig.run(["status"], environment: bluez.bus.environment).output
        #expect(scanning.range(of: #"scanning:     (mgmt|passive|active) on hci0 \(ScanMode = auto"#, options: .regularExpression) != nil, "\(scanning)")

        let before = daemon.output.count
        try await bluez.mock.control(bluez.connection, "RemoveAdapter", [.string("hci0")])
        try await waitFor("recording: lost while running: bluetooth-adapter", after: before)
        let status = try rig.run(["status"], environment: bluez.bus.environment)
        #expect(status.output.contains("recording:    armed"))
        try await Task.sleep(for: .seconds(1.5))
        let lost = daemon.output.count
        try await bluez.addAdapter()
        try await waitFor("recording: running", after: lost)
        try await waitFor("recording: telemetry gap from", after: lost)
        daemon.kill(SIGTERM)
        #expect(try daemon.wait(timeout: 5) == 0)
    }
}

extension RecordingEndToEndTests {
    /// Seed step 2, with python-dbusmock's logind: a short sleep resumes
    /// silently, a long one is reported as a gap; no login is needed and
    /// nothing is logged out; recording goes on.
    @Test func suspendAndResumeKeepTheSessionAndReportOnlyLongPausesAsGaps() async throws {
        // A trip is needed for fixes to count: the paired beacon stays in sight.
        let car = try await RecordingRig(config: "[Recording]\nGapThreshold = 2s\n", pairVehicle: true)
        defer { car.stop() }
        let (rig, bluez) = (car.session, car.bluez)
        let logind = try await LogindMock(on: bluez.bus)
        defer { logind.process.stop() }
        let daemon = try await car.startDaemon()
        defer { daemon.stop() }
        func waitFor(_ text: String, after offset: Int = 0) async throws { try await RecordingRig.waitFor(text, in: daemon, after: offset) }
        try await waitFor("recording: running")
        let beacon = try await car.keepBeaconInSight()
        defer { beacon.cancel() }
        try await waitFor("started")

        // The daemon holds a delay lock on sleep, so logind waits for its commit.
        @Sendable func inhibitors() async throws -> [DBusValue] { try await logind.inhibitors(via: bluez.connection) }
        let locks = try await inhibitors()
        #expect(locks.count == 1)
        guard case .structure(let lock)? = locks.first else {
            Issue.record("no inhibitor: \(locks)")
            return
        }
        #expect(lock.prefix(4).compactMap(\.string) == ["sleep", "waymark", "commit recorded samples before sleep", "delay"])

        // A short sleep: under the threshold, nothing to report.
        var mark = daemon.output.count
        try await logind.prepareForSleep(true, via: bluez.connection)
        try await waitFor("going to sleep", after: mark)
        try await Task.sleep(for: .seconds(1))
        try await logind.prepareForSleep(false, via: bluez.connection)
        try await waitFor("woke up", after: mark)
        try await Task.sleep(for: .milliseconds(300))
        #expect(!daemon.output.dropFirst(mark).contains("telemetry gap"))

        // A long one: reported, and recording goes on without a login.
        mark = daemon.output.count
        try await logind.prepareForSleep(true, via: bluez.connection)
        try await waitFor("going to sleep", after: mark)
        // The store is committed: the lock is released, so the sleep may go ahead.
        try await withDeadline(.seconds(5), "the lock released") {
            while try await !inhibitors().isEmpty { try await Task.sleep(for: .milliseconds(20)) }
        }
        try await Task.sleep(for: .seconds(3))
        try await logind.prepareForSleep(false, via: bluez.connection)
        try await waitFor("telemetry gap from", after: mark)
        #expect(!daemon.output.contains("not authorized") && !daemon.output.contains("Logged out"))
        let whoami = try rig.run(["whoami", "--json"])
        #expect(whoami.status == 0, "still logged in")
        #expect(try await inhibitors().count == 1, "taken again after the wake")
        let status = try rig.run(["status"], environment: bluez.bus.environment)
        #expect(status.output.contains("recording:    armed"))
        daemon.kill(SIGTERM)
        #expect(try daemon.wait(timeout: 5) == 0)
    }
}

extension RecordingEndToEndTests {
    /// Seed step 4: the daemon restarts (as systemd's Restart=always would)
    /// while the beacon is in range: the same trip goes on, with no user action.
    @Test func aRestartWithTheBeaconPresentContinuesTheSameTrip() async throws {
        let car = try await RecordingRig(pairVehicle: true)
        defer { car.stop() }
        let rig = car.session
        let beacon = try await car.keepBeaconInSight()
        defer { beacon.cancel() }

        let first = try await car.startDaemon()
        try await withDeadline(.seconds(30), "the trip") {
            while !first.output.contains("started") { try await Task.sleep(for: .milliseconds(50)) }
        }
        first.kill(SIGKILL)
        _ = try first.wait(timeout: 5)

        let second = try await car.startDaemon()
        defer { second.stop() }
        try await withDeadline(.seconds(30), "the trip to go on") {
            while !second.output.contains("resumed") { try await Task.sleep(for: .milliseconds(50)) }
        }
        #expect(!second.output.contains("started"), "no new trip")
        let trips = try rig.run(["trips", "--json"])
        let list = try #require(try JSONSerialization.jsonObject(with: Data(trips.output.utf8)) as? [[String: Any]])
        #expect(list.count == 1 && list.first?["end"] == nil)
        second.kill(SIGTERM)
        #expect(try second.wait(timeout: 5) == 0)
    }
}

extension RecordingEndToEndTests {
    /// An encrypted BTHome sensor (the Shelly BLU H&T vector) paired by its
    /// bindkey: its decrypted temperature is in the samples the backend got.
    @Test func anEncryptedBTHomeSensorPairedByBindkeyIsRecordedDecrypted() async throws {
        let car = try await RecordingRig(config: "[Recording]\nBeaconLostTimeout = 1s\nReopenWindow = 2s\n", pairVehicle: true)
        defer { car.stop() }
        let (rig, bluez) = (car.session, car.bluez)
        let sensor = "54:48:E6:8F:80:A5"
        try "231d39c1d7cc1ab1aee224cd096db932\n".write(toFile: rig.work.file("key"), atomically: true, encoding: .utf8)
        #expect(try rig.run(["pair", "--address", sensor, "--role", "sensor", "--bindkey-file", rig.work.file("key")]).status == 0)
        let daemon = try await car.startDaemon()
        defer { daemon.stop() }
        try await RecordingRig.waitFor("recording: running", in: daemon)
        let beacon = try await car.keepBeaconInSight()
        try await RecordingRig.waitFor("started", in: daemon)
        let reading = DBusDictEntry(.string("0000fcd2-0000-1000-8000-00805f9b34fb"),
                                    .variant(.bytes(Advertisement.parseHex("41a47266c95f730011223378237214")!)))
        try await bluez.addDevice(sensor, service: [reading], rssi: -70)
        try await bluez.advertise(sensor, service: [reading], rssi: -71)
        try await Task.sleep(for: .seconds(1))
        beacon.cancel()
        try await withDeadline(.seconds(20), "the sensor sample uploaded") {
            while try rig.backend.summary().kinds["sensor"] == nil { try await Task.sleep(for: .milliseconds(100)) }
        }
        let samples = try rig.backend.samples(kind: "sensor")
        let first = try #require(samples.first)
        #expect(first["format"] as? String == "bthome" && first["encrypted"] as? Bool == true && first["problem"] == nil, "\(first)")
        let objects = try #require(first["objects"] as? [[String: Any]], "\(first)")
        let temperature = objects.first { $0["name"] as? String == "temperature" }?["value"] as? Double
        #expect(temperature == 25.06, "\(objects)")
        daemon.kill(SIGTERM)
        #expect(try daemon.wait(timeout: 5) == 0)

        // The trip report charts the decrypted reading under the sensor's label.
        let trip = try #require(samples.first?["trip_id"] as? String)
        #expect(try rig.run(["report", "--trip", trip, "--out", rig.work.file("trip.html")]).status == 0)
        let html = try String(contentsOfFile: rig.work.file("trip.html"), encoding: .utf8)
        #expect(html.contains("(pairing-") && html.contains(": temperature, 25.1 to 25.1</figcaption>"), "\(html)")
    }
}
