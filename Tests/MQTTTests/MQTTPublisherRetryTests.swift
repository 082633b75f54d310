import MQTT
import PeerHarness
import Storage
import Synchronization
import Telemetry
import Testing
import Upload

/// The MQTT sink against a real broker on a test clock: how long it waits
/// before it publishes again or reconnects.
@Suite(.serialized)
struct MQTTPublisherRetryTests {
    final class Seen: Sendable {
        let events = Mutex<[MQTTPublisher<TestClock>.Event]>([])
    }

    static let denyAll = "user gateway\ntopic readwrite nothing-here/#\n"
    static let allowAll = "user gateway\ntopic readwrite #\n"

    /// Refused batches grow the backoff to tens of seconds; a broker restart
    /// then is reconnected to within the first step (1 s), not after the
    /// grown backoff, and the refused samples go.
    @Test func aLostConnectionIsRetriedFromTheFirstStepNotAfterTheRefusalsBackoff() async throws {
        let (outbox, directory) = try OutboxCursorTests.outbox([.mqtt])
        defer { directory.remove() }
        try outbox.append(OutboxCursorTests.samples(10))
        let broker = try Mosquitto(directory: directory, acl: Self.denyAll)
        defer { broker.stop() }
        var settings = MQTTSettings(host: "127.0.0.1", port: broker.port, tls: false, clientID: "waymark-retry-test")
        (settings.username, settings.password) = (broker.username, broker.password)
        let options = MQTTPublisher<TestClock>.Options(deviceID: "gw-test", topicPrefix: "waymark/gw-test", batchCount: 500, batchBytes: 512 << 10,
                                                       discovery: nil, retryCap: .seconds(900))
        let clock = TestClock()
        let publisher = try MQTTPublisher(settings: settings, outbox: outbox, options: options, labels: SensorLabels([]), clock: clock, isAuthorized: { true },
                                          state: { GatewayState(armed: true, running: false, trip: nil, queueDepth: 0, scanMode: nil) })
        let seen = Seen()
        let events = publisher.events
        let reader = Task { for await event in events { seen.events.withLock { $0.append(event) } } }
        defer { reader.cancel() }
        let running = Task { await publisher.run() }
        defer { running.cancel() }
        // Waits for an event after those already matched.
        var consumed = 0
        func next(_ what: String, where matches: @escaping @Sendable (MQTTPublisher<TestClock>.Event) -> Bool) async throws {
            let start = consumed
            let found = try await withDeadline(.seconds(20), what) {
                while true {
                    if let index = seen.events.withLock({ events in events.indices.dropFirst(start).first { matches(events[$0]) } }) { return index }
                    try await Task.sleep(for: .milliseconds(10))
                }
            }
            consumed = found + 1
        }
        try await next("connected") { if case .connected = $0 { true } else { false } }
        try await next("the ACL's refusal") { if case .failed = $0 { true } else { false } }
        // Six more refusals, each after its backoff: the next ceiling is 128 s.
        for _ in 0..<6 {
            try await clock.waitForSleepers(1)
            clock.advance(by: .seconds(900))
        }
        try await clock.waitForSleepers(1)
        #expect(try outbox.pending(for: .mqtt) == 10, "nothing acknowledged while refused")

        try broker.replaceACL(Self.allowAll)
        try broker.restart()
        try await next("disconnected") { $0 == .disconnected }
        try await clock.waitForSleepers(1)
        clock.advance(by: .seconds(1))
        try await next("connected again after at most 1 s") { if case .connected = $0 { true } else { false } }
        try await next("the refused samples published") { $0 == .published(first: 1, last: 10) }
    }
}
