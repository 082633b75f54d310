import Foundation
import MQTT
import PeerHarness
import Telemetry
import Testing
import Upload

/// `[MQTT] Broker` as a list: the publisher connects to the first broker
/// that answers and, when that one is lost, to the next, round the list,
/// with the same client id; nothing queued is lost on the way, and the
/// retained state names the broker in use. Two real mosquitto brokers and
/// a port where nothing listens.
@Suite(.serialized)
struct MQTTFailoverTests {
    @Test func aListOfBrokersSkipsOneThatIsDownAndMovesToTheNextWhenItsBrokerIsKilled() async throws {
        let (outbox, directory) = try OutboxCursorTests.outbox([.mqtt])
        defer { directory.remove() }
        let (first, second) = (try Mosquitto(directory: directory), try Mosquitto(directory: directory))
        defer {
            first.stop()
            second.stop()
        }
        let topics = ["waymark/gw-failover/samples", "waymark/gw-failover/state"]
        let watcher = try second.subscriber(topics, id: "failover-watcher", persistent: false)
        defer { watcher.stop() }
        try await withDeadline(.seconds(20), "the watcher subscribed") {
            while !watcher.output.contains("watching") {
                try second.publish(topics[0], "watching")
                try await Task.sleep(for: .milliseconds(100))
            }
        }
        let nobody = BrokerAddress(host: "127.0.0.1", port: try FreePort.tcp())
        var settings = MQTTSettings(brokers: [nobody, BrokerAddress(host: "127.0.0.1", port: first.port), BrokerAddress(host: "127.0.0.1", port: second.port)],
                                    tls: false, clientID: "waymark-failover-test")
        (settings.username, settings.password) = (first.username, first.password)
        let publisher = try MQTTPublisher.testing(settings, outbox: outbox, device: "gw-failover", batchCount: 10)
        let connections = ConnectionLog(publisher.events)
        func drained(_ what: String) async throws {
            try await withDeadline(.seconds(30), what) {
                while try outbox.pending(for: .mqtt) > 0 { try await Task.sleep(for: .milliseconds(50)) }
            }
        }
        let running = Task { await publisher.run() }
        defer { running.cancel() }

        #expect(try await connections.next("a connection past the broker that is down").port == first.port)
        try outbox.append(OutboxCursorTests.samples(100))
        await publisher.samplesAdded([])
        try await drained("the first 100 samples acknowledged by the first broker")

        first.process.kill(SIGKILL)
        #expect(try await connections.next("a connection to the next broker").port == second.port)
        try outbox.append(Array(OutboxCursorTests.samples(200).dropFirst(100)))
        await publisher.samplesAdded([])
        try await drained("the next 100 samples acknowledged by the second broker")

        let (ranges, state) = try await withDeadline(.seconds(20), "the watcher's copy of the last batch and the state") { () async throws -> ([ClosedRange<Int>], String) in
            while true {
                let ranges = MQTTPublisherDrainTests.ranges(watcher.output)
                let state = watcher.output.split(separator: "\n").last { $0.hasPrefix(topics[1] + " ") }
                if ranges.contains(where: { $0.upperBound == 200 }), let state { return (ranges, String(state)) }
                try await Task.sleep(for: .milliseconds(50))
            }
        }
        let heard = Set(ranges.flatMap { Array($0) })
        #expect(Set(101...200).isSubset(of: heard), "the second broker has every sample queued after the first was killed")
        #expect(state.contains(#""broker":"127.0.0.1:\#(second.port)""#), "the retained state names the broker in use: \(state)")
        #expect(await publisher.broker.port == second.port)
    }
}

