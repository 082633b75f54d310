import Foundation
import MQTT
import PeerHarness
import Telemetry
import Testing
import Upload

/// The MQTT sink's drain, triggered from everywhere at once: a batch is in
/// flight at most once, so the broker never gets a sequence number twice
/// within one connection.
@Suite(.serialized)
struct MQTTPublisherDrainTests {
    @Test func triggersThatComeTogetherNeverPublishABatchTwice() async throws {
        let (outbox, directory) = try OutboxCursorTests.outbox([.mqtt])
        defer { directory.remove() }
        try outbox.append(OutboxCursorTests.samples(3_000))
        let broker = try Mosquitto(directory: directory)
        defer { broker.stop() }
        let subscriber = try broker.subscriber(["waymark/gw-drain/samples"], id: "drain-watcher", persistent: false)
        defer { subscriber.stop() }
        // The watcher listens once it hears a message of its own.
        try await withDeadline(.seconds(20), "the watcher subscribed") {
            while !subscriber.output.contains("watching") {
                try broker.publish("waymark/gw-drain/samples", "watching")
                try await Task.sleep(for: .milliseconds(100))
            }
        }
        var settings = MQTTSettings(host: "127.0.0.1", port: broker.port, tls: false, clientID: "waymark-drain-test")
        (settings.username, settings.password) = (broker.username, broker.password)
        // Every authorization check gives the other triggers their turn, as a session read does.
        let publisher = try MQTTPublisher.testing(settings, outbox: outbox, device: "gw-drain", batchCount: 3, isAuthorized: { await Task.yield(); return true })
        let events = publisher.events
        let running = Task { await publisher.run() }
        defer { running.cancel() }
        for await case .connected in events { break }

        await withTaskGroup(of: Void.self) { group in
            for round in 0..<1_000 {
                group.addTask { if round.isMultiple(of: 2) { await publisher.flush() } else { await publisher.samplesAdded([]) } }
            }
        }
        try await withDeadline(.seconds(60), "every sample acknowledged") {
            while try outbox.pending(for: .mqtt) > 0 { try await Task.sleep(for: .milliseconds(50)) }
        }
        // The watcher has everything the broker acknowledged once the last batch is in its output.
        let ranges = try await withDeadline(.seconds(20), "the watcher's copy of the last batch") { () async throws -> [ClosedRange<Int>] in
            while true {
                let ranges = Self.ranges(subscriber.output)
                if ranges.contains(where: { $0.upperBound == 3_000 }) { return ranges }
                try await Task.sleep(for: .milliseconds(50))
            }
        }
        var seen = Set<Int>(), twice: [Int] = []
        for range in ranges { for seq in range where !seen.insert(seq).inserted { twice.append(seq) } }
        #expect(twice.isEmpty, "published twice on one connection: \(twice.prefix(20))")
        let missing = Set(1...3_000).subtracting(seen)
        #expect(missing.isEmpty, "never published: \(missing.sorted().prefix(20))")
    }

    /// `first_seq`…`last_seq` of each batch the watcher printed (`topic payload` lines).
    static func ranges(_ output: String) -> [ClosedRange<Int>] {
        output.split(separator: "\n").compactMap { line in
            guard let brace = line.firstIndex(of: "{"),
                  let object = try? JSONSerialization.jsonObject(with: Data(line[brace...].utf8)) as? [String: Any],
                  let first = object["first_seq"] as? Int, let last = object["last_seq"] as? Int, first <= last else { return nil }
            return first...last
        }
    }
}
