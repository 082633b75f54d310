import Foundation
import MQTT
import PeerHarness
import Telemetry
import Testing
import Upload

/// MQTT 5 and 3.1.1: `auto` speaks 5 to a broker that takes it (mosquitto)
/// and 3.1.1 to one that refuses 5 (nats-server, the clustered broker
/// Debian ships), and the sink's promise holds on both: every sample once,
/// the cursor moved on PUBACKs.
@Suite(.serialized)
struct MQTTProtocolTests {
    static func settings(port: Int, username: String, password: String, _ version: MQTTProtocol, id: String) -> MQTTSettings {
        var settings = MQTTSettings(host: "127.0.0.1", port: port, tls: false, clientID: id)
        (settings.username, settings.password, settings.protocolVersion) = (username, password, version)
        settings.will = MQTTMessage("waymark/gw-proto/availability", "offline", retain: true)
        return settings
    }

    /// Connects `settings`' client and returns the version it spoke.
    static func connect(_ settings: MQTTSettings) async throws -> (MQTTClient, MQTTProtocol) {
        let client = try MQTTClient(settings)
        let events = client.events
        client.connect()
        let first = try await events.next(within: .seconds(20), "the broker's answer")
        guard first == .connected else { throw PeerError.startFailed("MQTT client", output: "\(first)") }
        return (client, client.version)
    }

    @Test(arguments: [(MQTTProtocol.auto, MQTTProtocol.v5), (.v5, .v5), (.v311, .v311)])
    func mosquittoIsSpokenToInTheVersionAsked(_ asked: MQTTProtocol, _ spoken: MQTTProtocol) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let broker = try Mosquitto(directory: directory)
        defer { broker.stop() }
        let (client, version) = try await Self.connect(Self.settings(port: broker.port, username: broker.username, password: broker.password,
                                                                     asked, id: "proto-\(asked.rawValue)"))
        #expect(version == spoken)
        client.disconnect(sendingWill: false)
    }

    @Test func autoFallsBackToThreeOneOneWhenTheBrokerRefusesFive() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let broker = try NatsServer(directory: directory)
        defer { broker.stop() }
        let asked5 = try MQTTClient(Self.settings(port: broker.port, username: broker.username, password: broker.password, .v5, id: "proto-5"))
        let refusals = asked5.events
        asked5.connect()
        let refused = try await refusals.next(within: .seconds(20), "nats-server's answer to MQTT 5")
        guard case .connectFailed = refused else {
            Issue.record("nats-server took MQTT 5: \(refused)")
            return
        }
        let (client, version) = try await Self.connect(Self.settings(port: broker.port, username: broker.username, password: broker.password,
                                                                     .auto, id: "proto-auto"))
        #expect(version == .v311)
        client.disconnect(sendingWill: false)
    }

    /// The sink over 3.1.1 on nats-server: every sample once, the outbox
    /// emptied by PUBACKs, and on a stop the last will's `offline`, which
    /// 3.1.1 sends as a message since it has no "disconnect with will".
    @Test func theSinkDeliversEverySampleOnceOverThreeOneOneAndSaysOfflineWhenItStops() async throws {
        let (outbox, directory) = try OutboxCursorTests.outbox([.mqtt])
        defer { directory.remove() }
        try outbox.append(OutboxCursorTests.samples(300))
        let broker = try NatsServer(directory: directory)
        defer { broker.stop() }
        let watcher = try broker.subscriber(["waymark/gw-proto/#"], id: "proto-watcher")
        defer { watcher.stop() }
        // The watcher listens once it hears a message of its own.
        try await withDeadline(.seconds(20), "the watcher subscribed") {
            while !watcher.output.contains("watching") {
                try broker.publish("waymark/gw-proto/samples", "watching")
                try await Task.sleep(for: .milliseconds(100))
            }
        }
        let settings = Self.settings(port: broker.port, username: broker.username, password: broker.password, .auto, id: "waymark-gw-proto")
        let publisher = try MQTTPublisher.testing(settings, outbox: outbox, device: "gw-proto", batchCount: 20)
        let events = publisher.events
        let running = Task { await publisher.run() }
        for await case .connected in events { break }
        await publisher.flush()
        try await withDeadline(.seconds(60), "every sample acknowledged") {
            while try outbox.pending(for: .mqtt) > 0 { try await Task.sleep(for: .milliseconds(50)) }
        }
        running.cancel()
        await running.value
        let ranges = try await withDeadline(.seconds(20), "the watcher's copy of the last batch and the will") { () async throws -> [ClosedRange<Int>] in
            while true {
                let ranges = MQTTPublisherDrainTests.ranges(watcher.output)
                if ranges.contains(where: { $0.upperBound == 300 }), watcher.output.contains("waymark/gw-proto/availability offline") { return ranges }
                try await Task.sleep(for: .milliseconds(50))
            }
        }
        let seqs = ranges.flatMap { Array($0) }
        #expect(seqs.count == 300 && Set(seqs) == Set(1...300), "each of the 300 once: \(seqs.count) received")
    }
}
