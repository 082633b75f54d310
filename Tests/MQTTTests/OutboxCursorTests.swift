import Foundation
import PeerHarness
import Storage
import Telemetry
import Testing
import Upload

/// Two sinks on one outbox: each reads from its own cursor, and a sample
/// leaves only when both have it.
struct OutboxCursorTests {
    static func outbox(_ sinks: [UploadSink]) throws -> (Outbox, TemporaryDirectory) {
        let directory = try TemporaryDirectory()
        let database = try Database(path: directory.file("outbox.db"), migrations: Migration.numbered([Outbox.schema] + Outbox.changes))
        return (Outbox(database: database, sinks: sinks), directory)
    }

    static func samples(_ count: Int) -> [Sample] {
        (0..<count).map { Sample(time: 1_700_000_000 + Double($0), payload: .beacon(rssi: -60 - $0)) }
    }

    @Test func aSampleLeavesOnlyOnceEverySinkHasIt() throws {
        let (outbox, directory) = try Self.outbox([.http, .mqtt])
        defer { directory.remove() }
        try outbox.append(Self.samples(10))
        let first = try #require(try outbox.oldest(count: 4, bytes: .max, for: .http))
        try outbox.acknowledge(first, by: .http, at: 0)
        #expect(try outbox.status().depth == 10, "mqtt has nothing yet")
        #expect(try outbox.pending(for: .http) == 6 && outbox.pending(for: .mqtt) == 10)
        #expect(try outbox.oldest(count: 100, bytes: .max, for: .http)?.firstSeq == 5, "http goes on from its cursor")
        let mqtt = try #require(try outbox.oldest(count: 7, bytes: .max, for: .mqtt))
        #expect(mqtt.firstSeq == 1 && mqtt.lastSeq == 7)
        try outbox.acknowledge(mqtt, by: .mqtt, at: 0)
        #expect(try outbox.status().depth == 6, "1–4 are with both; 5–7 only with mqtt")
        let rest = try #require(try outbox.oldest(count: 100, bytes: .max, for: .http))
        try outbox.deadLetter(rest, by: .http, status: 422, reason: "no", at: 0)
        #expect(try outbox.status().depth == 3 && outbox.status().deadLetters == 1, "8–10 wait for mqtt")
        // A cursor never moves back.
        try outbox.acknowledge(first, by: .mqtt, at: 0)
        #expect(try outbox.oldest(count: 100, bytes: .max, for: .mqtt)?.firstSeq == 8)
    }

    @Test func withOneSinkAnAcknowledgedBatchLeavesAtOnce() throws {
        let (outbox, directory) = try Self.outbox([.mqtt])
        defer { directory.remove() }
        try outbox.append(Self.samples(5))
        let batch = try #require(try outbox.oldest(count: 3, bytes: .max, for: .mqtt))
        try outbox.acknowledge(batch, by: .mqtt, at: 0)
        #expect(try outbox.status().depth == 2 && outbox.pending(for: .mqtt) == 2)
    }
}
