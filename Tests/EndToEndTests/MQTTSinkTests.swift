import Advertisements
import Basics
import Command
import DBus
import Foundation
import PeerHarness
import Testing

/// `waymark run` publishing to Debian's mosquitto (loopback listener, a
/// password file, persistence on), read back by `mosquitto_sub`.
@Suite(.serialized)
struct MQTTSinkTests {
    static let sensor = "54:48:E6:8F:80:A5"
    /// The Shelly BLU H&T vector: encrypted BTHome, 25.06 °C once decrypted.
    static let reading = DBusDictEntry(.string("0000fcd2-0000-1000-8000-00805f9b34fb"),
                                       .variant(.bytes(Advertisement.parseHex("41a47266c95f730011223378237214")!)))

    static func config(_ broker: Mosquitto, sinks: String, password: String? = nil, caFile: String? = nil) -> String {
        """
        [Recording]
        BeaconLostTimeout = 1s
        ReopenWindow = 2s

        [Upload]
        Sinks = \(sinks)
        BatchAge = 1s

        [MQTT]
        Broker = \(caFile == nil ? "mqtt" : "mqtts")://127.0.0.1:\(broker.port)
        Username = \(broker.username)
        PasswordFile = \(password ?? broker.passwordFile)
        \(caFile.map { "CAFile = \($0)" } ?? "")

        """
    }

    /// `topic payload` lines from `mosquitto_sub -v`: each message's topic and payload.
    static func messages(_ subscriber: ChildProcess) -> [(topic: String, payload: String)] {
        subscriber.output.split(separator: "\n").map { line in
            let parts = line.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: false)
            return (String(parts[0]), parts.count > 1 ? String(parts[1]) : "")
        }
    }

    static func object(_ text: String) -> [String: Any]? {
        try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
    }

    /// The sequence numbers the `samples` batches covered, from their ranges.
    static func publishedSeqs(_ messages: [(topic: String, payload: String)]) -> Set<Int> {
        var seqs: Set<Int> = []
        for message in messages where message.topic.hasSuffix("/samples") {
            guard let batch = object(message.payload), let first = batch["first_seq"] as? Int, let last = batch["last_seq"] as? Int else { continue }
            let inBody = (batch["samples"] as? [[String: Any]])?.compactMap { $0["seq"] as? Int } ?? []
            #expect(inBody.first == first && inBody.last == last, "a batch's range is its samples': \(first)–\(last)")
            seqs.formUnion(first...last)
        }
        return seqs
    }

    /// The highest sequence number the store ever gave a sample.
    static func lastSeq(_ rig: SessionCommandTests.Rig) throws -> Int {
        try storeNumber(rig, "SELECT seq FROM sqlite_sequence WHERE name = 'outbox'")
    }

    /// The MQTT sink's committed cursor: the last sequence number the broker acknowledged.
    static func cursor(_ rig: SessionCommandTests.Rig) throws -> Int {
        try storeNumber(rig, "SELECT seq FROM sink_cursor WHERE sink = 'mqtt'")
    }

    /// One number from the store, read by the sqlite3 CLI while the daemon runs; 0 when there is none.
    static func storeNumber(_ rig: SessionCommandTests.Rig, _ query: String) throws -> Int {
        let process = try ChildProcess("sqlite3", ["-readonly", rig.work.file("data/waymark.db"), query],
                                       aptPackage: "sqlite3", logPath: rig.work.file("sqlite3-\(UInt32.random(in: 0...UInt32.max)).log"))
        _ = try process.wait(timeout: 10)
        return Int(process.output.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    }

    @Test func aTripReachesTheBrokerWithDiscoveryAvailabilityAndTheSensorsReadingThenTheWillSaysOffline() async throws {
        let work = try TemporaryDirectory()
        defer { work.remove() }
        let broker = try Mosquitto(directory: work)
        defer { broker.stop() }
        let car = try await RecordingRig(config: Self.config(broker, sinks: "http, mqtt"), pairVehicle: true)
        defer { car.stop() }
        let rig = car.session
        try "231d39c1d7cc1ab1aee224cd096db932\n".write(toFile: rig.work.file("key"), atomically: true, encoding: .utf8)
        #expect(try rig.run(["pair", "--address", Self.sensor, "--role", "sensor", "--label", "Fridge", "--bindkey-file", rig.work.file("key")]).status == 0)
        let subscriber = try broker.subscriber(["waymark/#", "homeassistant/#"])
        defer { subscriber.stop() }
        let daemon = try await car.startDaemon()
        defer { daemon.stop() }
        try await RecordingRig.waitFor("mqtt: connected", in: daemon)
        let beacon = try await car.keepBeaconInSight()
        try await RecordingRig.waitFor("started", in: daemon)
        try await car.bluez.addDevice(Self.sensor, service: [Self.reading], rssi: -70)
        try await car.bluez.advertise(Self.sensor, service: [Self.reading], rssi: -71)
        try await withDeadline(.seconds(30), "the sensor's reading and a batch on the broker") {
            while !(Self.messages(subscriber).contains { $0.topic.contains("/sensor/pairing-") }
                    && Self.messages(subscriber).contains { $0.topic.hasSuffix("/samples") }) {
                try await Task.sleep(for: .milliseconds(100))
            }
        }
        beacon.cancel()
        try await RecordingRig.waitFor("ended", in: daemon)
        try await withDeadline(.seconds(30), "both sinks drained") {
            while try rig.backend.summary().kinds["sensor"] == nil { try await Task.sleep(for: .milliseconds(100)) }
        }
        try await Task.sleep(for: .seconds(2))
        let messages = Self.messages(subscriber)
        let topics = Set(messages.map(\.topic))
        let availability = messages.first { $0.topic.hasSuffix("/availability") }
        let device = try #require(availability.flatMap { $0.topic.split(separator: "/").dropFirst().first }, "\(topics)")
        let prefix = "waymark/\(device)"
        #expect(messages.first { $0.topic == prefix + "/availability" }?.payload == "online")

        // Discovery: the gateway's entities, the car, and the sensor's temperature.
        let node = "waymark_\(device)"
        for topic in ["binary_sensor/\(node)/armed", "binary_sensor/\(node)/running", "binary_sensor/\(node)/in_trip",
                      "sensor/\(node)/queue_depth", "device_tracker/\(node)/car"] {
            #expect(topics.contains("homeassistant/\(topic)/config"), "\(topic) in \(topics.sorted())")
        }
        let temperatureConfig = try #require(messages.first { $0.topic.hasPrefix("homeassistant/sensor/\(node)/pairing-") && $0.topic.hasSuffix("_temperature/config") },
                                             "\(topics.sorted())")
        let config = try #require(Self.object(temperatureConfig.payload))
        #expect(config["device_class"] as? String == "temperature" && config["unit_of_measurement"] as? String == "°C", "\(config)")
        #expect((config["device"] as? [String: Any])?["name"] as? String == "Fridge", "\(config)")
        let stateTopic = try #require(config["state_topic"] as? String)
        let reading = try #require(messages.last { $0.topic == stateTopic }.flatMap { Self.object($0.payload) }, "\(stateTopic) in \(topics.sorted())")
        #expect(reading["temperature"] as? Double == 25.06, "\(reading)")

        // The retained state, the car's position, and the samples with their ranges.
        let state = try #require(messages.last { $0.topic == prefix + "/state" }.flatMap { Self.object($0.payload) })
        #expect(state["armed"] as? Bool == true && state["queue_depth"] is Int && state.keys.contains("in_trip"), "\(state)")
        // What the gateway runs, for the fleet.
        #expect(state["version"] as? String == Waymark.version && state["kernel"] is String && state.keys.contains("bluez_version"), "\(state)")
        let location = try #require(messages.last { $0.topic == prefix + "/location" }.flatMap { Self.object($0.payload) }, "\(topics.sorted())")
        #expect(location["latitude"] is Double && location["longitude"] is Double, "\(location)")
        let last = try Self.lastSeq(rig)
        #expect(last > 0 && Self.publishedSeqs(messages).isSuperset(of: 1...last), "every sample up to \(last) on the broker")
        #expect(messages.contains { $0.topic == prefix + "/events" && $0.payload.contains("\"type\":\"tripStarted\"") }, "\(topics.sorted())")

        // A crash: the broker publishes the will.
        daemon.kill(SIGKILL)
        try await withDeadline(.seconds(20), "offline from the will") {
            while Self.messages(subscriber).last(where: { $0.topic == prefix + "/availability" })?.payload != "offline" {
                try await Task.sleep(for: .milliseconds(100))
            }
        }
    }

    /// Restarting the broker mid-trip loses no sample, and no batch the
    /// broker acknowledged is published again: a clean QoS 0 watcher, which
    /// the broker sends each message once as it arrives, sees after the
    /// restart only batches beyond the cursor committed when the connection
    /// dropped, each once.
    @Test func aBrokerRestartMidTripLosesNoSampleAndRepublishesNoAcknowledgedBatch() async throws {
        let work = try TemporaryDirectory()
        defer { work.remove() }
        let broker = try Mosquitto(directory: work)
        defer { broker.stop() }
        let car = try await RecordingRig(config: Self.config(broker, sinks: "mqtt"), pairVehicle: true)
        defer { car.stop() }
        let subscriber = try broker.subscriber(["waymark/+/samples"])
        let daemon = try await car.startDaemon()
        defer { daemon.stop() }
        try await RecordingRig.waitFor("mqtt: connected", in: daemon)
        let beacon = try await car.keepBeaconInSight()
        try await RecordingRig.waitFor("started", in: daemon)
        try await Task.sleep(for: .milliseconds(1500))
        // The subscriber goes with the broker; its persistent session brings
        // what came while it was away.
        subscriber.stop()
        broker.stop()
        try await Task.sleep(for: .milliseconds(500))
        let cursor = try Self.cursor(car.session)
        try broker.startAgain()
        let watcher = try broker.subscriber(["waymark/+/samples"], id: "waymark-test-watcher", persistent: false)
        defer { watcher.stop() }
        try await Task.sleep(for: .milliseconds(1500))
        let again = try broker.subscriber(["waymark/+/samples"])
        defer { again.stop() }
        try await RecordingRig.waitFor("mqtt: connected", in: daemon, after: daemon.output.range(of: "mqtt: connected")!.upperBound.utf16Offset(in: daemon.output))
        try await Task.sleep(for: .milliseconds(1500))
        beacon.cancel()
        try await RecordingRig.waitFor("ended", in: daemon)
        try await Task.sleep(for: .milliseconds(1500))
        daemon.kill(SIGTERM)
        #expect(try daemon.wait(timeout: 5) == 0)
        let last = try Self.lastSeq(car.session)
        let seen = Self.publishedSeqs(Self.messages(subscriber) + Self.messages(again))
        #expect(last > 0 && seen.isSuperset(of: 1...last), "missing: \(Set(1...max(last, 1)).subtracting(seen).sorted()); \(daemon.output.suffix(3000))")

        let batches = Self.messages(watcher).compactMap { message -> ClosedRange<Int>? in
            guard let batch = Self.object(message.payload), let first = batch["first_seq"] as? Int, let last = batch["last_seq"] as? Int else { return nil }
            return first...last
        }
        #expect(cursor > 0 && !batches.isEmpty, "cursor \(cursor), \(batches.count) batches after the restart")
        #expect(batches.allSatisfy { $0.lowerBound > cursor }, "acknowledged through \(cursor) before the restart, published again: \(batches.filter { $0.lowerBound <= cursor })")
        #expect(Set(batches.map(\.lowerBound)).count == batches.count, "each batch once after the restart: \(batches)\n\(daemon.output.suffix(3000))")
    }

    @Test func aWrongPasswordIsOneClearLineAndTheSamplesStayQueued() async throws {
        let work = try TemporaryDirectory()
        defer { work.remove() }
        let broker = try Mosquitto(directory: work)
        defer { broker.stop() }
        try "not-the-password".write(toFile: work.file("wrong"), atomically: true, encoding: .utf8)
        let car = try await RecordingRig(config: Self.config(broker, sinks: "mqtt", password: work.file("wrong")), pairVehicle: true)
        defer { car.stop() }
        let daemon = try await car.startDaemon()
        defer { daemon.stop() }
        let refusals = try await Self.tripWhileRefused(car, daemon, problem: "check [MQTT] Username and PasswordFile")
        #expect(refusals.count == 1, "said once, not per retry: \(refusals)")
        #expect(!daemon.output.contains("not-the-password"))
    }

    /// A trip while the broker refuses something: then the daemon stops, its
    /// samples are still queued, and the log's lines naming `problem` return.
    static func tripWhileRefused(_ car: RecordingRig, _ daemon: ChildProcess, problem: String) async throws -> [Substring] {
        let beacon = try await car.keepBeaconInSight()
        try await RecordingRig.waitFor("started", in: daemon)
        beacon.cancel()
        try await RecordingRig.waitFor("ended", in: daemon)
        try await RecordingRig.waitFor(problem, in: daemon)
        daemon.kill(SIGTERM)
        #expect(try daemon.wait(timeout: 5) == 0)
        #expect(try queued(car) > 0, "the trip's samples wait in the queue")
        return daemon.output.split(separator: "\n").filter { $0.contains(problem) }
    }

    /// The trip's samples still queued for the MQTT sink, from `queue --json`.
    static func queued(_ car: RecordingRig) throws -> Int {
        let queue = try car.session.run(["queue", "--json"])
        return object(queue.output)?["depth"] as? Int ?? 0
    }

    @Test func anUntrustedBrokerCertificateIsOneClearLineThenTheRightCATakesTheSamples() async throws {
        let work = try TemporaryDirectory()
        defer { work.remove() }
        let certificates = try TestCertificates(directory: work, name: "broker")
        let stranger = try TestCertificates(directory: work, name: "stranger")
        let broker = try Mosquitto(directory: work, certificates: certificates)
        defer { broker.stop() }
        let car = try await RecordingRig(config: Self.config(broker, sinks: "mqtt", caFile: stranger.caFile), pairVehicle: true)
        defer { car.stop() }
        let daemon = try await car.startDaemon()
        defer { daemon.stop() }
        let problems = try await Self.tripWhileRefused(car, daemon, problem: "[MQTT] CAFile")
        #expect(problems.count == 1 && problems[0].contains("TLS"), "\(problems)")

        // The CA that signed the broker's certificate: connected, and the queue drains.
        let text = try String(contentsOfFile: car.session.work.file("waymark.conf"), encoding: .utf8)
        try text.replacingOccurrences(of: stranger.caFile, with: certificates.caFile)
            .write(toFile: car.session.work.file("waymark.conf"), atomically: true, encoding: .utf8)
        let test = try car.session.run(["mqtt", "test"])
        #expect(test.status == 0 && test.output.contains("over TLS, certificate verified"), "\(test.output)")
        let again = try await car.startDaemon()
        defer { again.stop() }
        try await RecordingRig.waitFor("mqtt: connected", in: again)
        try await RecordingRig.waitFor("mqtt: samples", in: again)
        try await Task.sleep(for: .seconds(1))
        again.kill(SIGTERM)
        #expect(try again.wait(timeout: 5) == 0)
        #expect(try Self.queued(car) == 0, "\(again.output.suffix(2000))")
    }

    @Test func aTopicTheACLDeniesIsOneClearLineAndTheSamplesStayQueued() async throws {
        let work = try TemporaryDirectory()
        defer { work.remove() }
        let (broker, car, daemon) = try await Self.carOnBrokerRefusingSamples(work)
        defer { daemon.stop(); car.stop(); broker.stop() }
        let refusals = try await Self.tripWhileRefused(car, daemon, problem: "ACL")
        #expect(refusals.count == 1 && refusals[0].contains("/samples"), "\(refusals)")
    }

    /// A broker whose ACL refuses the samples, and a car whose daemon has connected to it.
    static func carOnBrokerRefusingSamples(_ work: TemporaryDirectory) async throws -> (Mosquitto, RecordingRig, ChildProcess) {
        // The broker and the daemon stop when released, should this throw.
        let broker = try Mosquitto(directory: work, acl: Self.aclDenyingSamples)
        let car = try await RecordingRig(config: Self.config(broker, sinks: "mqtt"), pairVehicle: true)
        do {
            let daemon = try await car.startDaemon()
            try await RecordingRig.waitFor("mqtt: connected", in: daemon)
            return (broker, car, daemon)
        } catch {
            car.stop()
            throw error
        }
    }

    /// Everything under the prefix but the samples.
    static let aclDenyingSamples = """
        user gateway
        topic readwrite homeassistant/#
        topic readwrite waymark/+/availability
        topic readwrite waymark/+/state
        topic readwrite waymark/+/location
        topic readwrite waymark/+/events
        topic readwrite waymark/+/sensor/#

        """

    /// A broker that goes away while a refused batch waits for its retry is
    /// connected to again when it is back (here allowing the samples), and
    /// the refused samples reach it: the pending retry does not stand in
    /// for the reconnect.
    @Test func aBrokerRestartWhileARefusedBatchWaitsIsConnectedToAgain() async throws {
        let work = try TemporaryDirectory()
        defer { work.remove() }
        let (broker, car, daemon) = try await Self.carOnBrokerRefusingSamples(work)
        defer { daemon.stop(); car.stop(); broker.stop() }
        let beacon = try await car.keepBeaconInSight()
        defer { beacon.cancel() }
        try await RecordingRig.waitFor("started", in: daemon)
        try await RecordingRig.waitFor("ACL", in: daemon)
        let refused = daemon.output.utf16.count
        try broker.replaceACL(Self.aclDenyingSamples + "topic readwrite waymark/+/samples\n")
        #expect(try Self.cursor(car.session) == 0, "nothing acknowledged while the ACL refused the samples")
        try broker.restart()
        try await RecordingRig.waitFor("mqtt: connected", in: daemon, after: refused)
        // The broker's PUBACKs move the sink's cursor past the refused samples.
        try await withDeadline(.seconds(30), "the refused samples acknowledged by the broker") {
            while try Self.cursor(car.session) < 1 { try await Task.sleep(for: .milliseconds(100)) }
        }
    }

    @Test func withCommandsOnTheBrokerCanStopAndStartRecording() async throws {
        let work = try TemporaryDirectory()
        defer { work.remove() }
        let broker = try Mosquitto(directory: work)
        defer { broker.stop() }
        let car = try await RecordingRig(config: Self.config(broker, sinks: "mqtt") + "Commands = true\n", pairVehicle: true)
        defer { car.stop() }
        let subscriber = try broker.subscriber(["waymark/+/state"])
        defer { subscriber.stop() }
        let daemon = try await car.startDaemon()
        defer { daemon.stop() }
        try await RecordingRig.waitFor("recording: running", in: daemon)
        try await withDeadline(.seconds(20), "the retained state") {
            while Self.messages(subscriber).isEmpty { try await Task.sleep(for: .milliseconds(100)) }
        }
        let prefix = String(Self.messages(subscriber)[0].topic.dropLast("/state".count))
        try broker.publish(prefix + "/cmd/stop", "")
        try await RecordingRig.waitFor("mqtt: command stop", in: daemon)
        try await RecordingRig.waitFor("recording: disarmed", in: daemon)
        try broker.publish(prefix + "/cmd/start", "")
        try await RecordingRig.waitFor("mqtt: command start", in: daemon)
        let stoppedAt = daemon.output.range(of: "recording: disarmed")!.upperBound.utf16Offset(in: daemon.output)
        try await RecordingRig.waitFor("recording: running", in: daemon, after: stoppedAt)
        try broker.publish(prefix + "/cmd/reboot", "")
        try await RecordingRig.waitFor("ignoring unknown command \"reboot\"", in: daemon)
        daemon.kill(SIGTERM)
        #expect(try daemon.wait(timeout: 5) == 0)
    }

    @Test func aBrokerThatWantsAClientCertificateTakesTheConfiguredOneAndSaysSoWithout() async throws {
        let work = try TemporaryDirectory()
        defer { work.remove() }
        let server = try TestCertificates(directory: work, name: "broker")
        let client = try TestCertificates(directory: work, name: "client")
        let broker = try Mosquitto(directory: work, certificates: server, clientCA: client.caFile)
        defer { broker.stop() }
        let rig = try SessionCommandTests.Rig()
        defer { rig.stop() }
        let base = try String(contentsOfFile: rig.work.file("waymark.conf"), encoding: .utf8) + "\n" + Self.config(broker, sinks: "mqtt", caFile: server.caFile)
        try (base + "CertFile = \(client.certificateFile)\nKeyFile = \(client.keyFile)\n")
            .write(toFile: rig.work.file("waymark.conf"), atomically: true, encoding: .utf8)
        let with = try rig.run(["mqtt", "test"])
        #expect(with.status == 0 && with.output.contains("certificate verified") && with.output.contains("read it back"), "\(with.output)")
        try base.write(toFile: rig.work.file("waymark.conf"), atomically: true, encoding: .utf8)
        let without = try rig.run(["mqtt", "test"])
        #expect(without.status != 0 && without.output.split(separator: "\n").count == 1 && without.output.contains("MQTT:"), "\(without.output)")
    }
}
