import Foundation
import MQTT
import PeerHarness
import Telemetry
import Testing
import Upload

/// A real three-node cluster (Debian's nats-server: routes, JetStream, MQTT
/// 3.1.1 on each node, its MQTT streams replicated on all three), two nodes
/// in the gateway's `[MQTT] Broker`, and a fleet consumer with a persistent
/// session on the third. The node the gateway is connected to is killed
/// with SIGKILL in the middle of a stream of batches; then it is started
/// again, and the other node, now in use, is killed the same way.
@Suite(.serialized)
struct MQTTClusterTests {
    @Test func killingTheNodeInUseTwiceLosesNoSampleAndRepeatsOnlyWhatWasInFlight() async throws {
        let (outbox, directory) = try OutboxCursorTests.outbox([.mqtt])
        defer { directory.remove() }
        let cluster = try NatsCluster(directory: directory)
        defer { cluster.stop() }
        let nodes = cluster.nodes
        let topics = ["waymark/gw-cluster/samples", "waymark/gw-cluster/availability"]
        let consumer = try nodes[2].subscriber(topics, id: "fleet-consumer", persistent: true)
        defer { consumer.stop() }
        // The cluster makes its MQTT streams at the first connection (seconds).
        try await withDeadline(.seconds(60), "the consumer subscribed") {
            while !consumer.output.contains("watching") {
                // Refused while the cluster is still making them: tried again.
                try? nodes[0].publish(topics[0], "watching")
                try await Task.sleep(for: .milliseconds(250))
            }
        }
        var settings = MQTTSettings(brokers: nodes.prefix(2).map { BrokerAddress(host: "127.0.0.1", port: $0.port) }, tls: false, clientID: "waymark-gw-cluster")
        (settings.username, settings.password) = (nodes[0].username, nodes[0].password)
        let (batchCount, perPhase) = (5, 1_500)
        let publisher = try MQTTPublisher.testing(settings, outbox: outbox, device: "gw-cluster", batchCount: batchCount)
        let connections = ConnectionLog(publisher.events)
        let running = Task { await publisher.run() }
        defer { running.cancel() }
        #expect(try await connections.next("the first node").port == nodes[0].port)

        var reconnects: [Double] = []
        for (phase, killed, next) in [(0, 0, 1), (1, 1, 0)] {
            let last = perPhase * (phase + 1)
            try outbox.append(Array(OutboxCursorTests.samples(last).dropFirst(perPhase * phase)))
            await publisher.samplesAdded([])
            try await withDeadline(.seconds(30), "the consumer has a batch of phase \(phase + 1)") {
                while !MQTTPublisherDrainTests.ranges(consumer.output).contains(where: { $0.lowerBound > perPhase * phase }) {
                    try await Task.sleep(for: .milliseconds(10))
                }
            }
            #expect(try outbox.pending(for: .mqtt) > 0, "killed with batches still to go")
            let killedAt = Date()
            nodes[killed].process.kill(SIGKILL)
            // The cluster elects new leaders for the MQTT streams the killed node led first.
            // The backoff grows meanwhile (full jitter, 1 s doubling): minutes, at worst.
            #expect(try await connections.next("the other node", within: .seconds(300)).port == nodes[next].port)
            reconnects.append(Date().timeIntervalSince(killedAt))
            try await withDeadline(.seconds(90), "phase \(phase + 1)'s samples acknowledged") {
                while try outbox.pending(for: .mqtt) > 0 { try await Task.sleep(for: .milliseconds(50)) }
            }
            try await withDeadline(.seconds(30), "the consumer's copy of sample \(last)") {
                while !MQTTPublisherDrainTests.ranges(consumer.output).contains(where: { $0.upperBound == last }) {
                    try await Task.sleep(for: .milliseconds(50))
                }
            }
            if phase == 0 { try nodes[0].startAgain() }
        }
        // The cluster may move the session once more as the restarted node rejoins.
        try await withDeadline(.seconds(60), "connected before the stop") {
            while !(await publisher.isConnected) { try await Task.sleep(for: .milliseconds(50)) }
        }
        await publisher.stop()
        // The cluster keeps the retained `offline`: a new client on the third node reads it.
        let reader = try nodes[2].subscriber([topics[1]], id: "availability-reader")
        defer { reader.stop() }
        try await withDeadline(.seconds(30), "the retained offline on the availability topic") {
            while !reader.output.contains(topics[1] + " offline") { try await Task.sleep(for: .milliseconds(50)) }
        }

        var seen: [Int: Int] = [:]
        for range in MQTTPublisherDrainTests.ranges(consumer.output) { for seq in range { seen[seq, default: 0] += 1 } }
        let lost = (1...perPhase * 2).filter { seen[$0] == nil }
        let repeated = seen.values.filter { $0 > 1 }.count
        print("cluster: reconnected in \(reconnects.map { String(format: "%.2f s", $0) }.joined(separator: " and ")); "
              + "\(connections.count - 1) connections lost; \(repeated) samples repeated (in flight at a loss), \(lost.count) lost, of \(perPhase * 2)")
        #expect(lost.isEmpty, "lost: \(lost.prefix(20))")
        // At most the window (8 batches) at each connection lost: the two
        // kills, and any the cluster closed as it moved the session.
        let losses = connections.count - 1
        #expect(repeated <= losses * 8 * batchCount, "repeated \(repeated) samples over \(losses) lost connections")
    }
}
