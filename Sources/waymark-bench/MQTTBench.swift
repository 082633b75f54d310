import Foundation
import MQTT
import Peers
import Storage
import Telemetry
import Upload

/// Samples published at QoS 1 to a local mosquitto by the MQTT sink (from
/// the outbox, PUBACK moving its cursor), against paho-mqtt publishing the
/// same batch payloads to the same broker, one in flight each.
struct MQTTBench {
    var quick: Bool

    func run(into report: inout BenchReport) async throws {
        let total = quick ? 20_000 : 200_000
        let directory = try TemporaryDirectory("waymark-bench-mqtt")
        defer { directory.remove() }
        let broker = try Mosquitto(directory: directory)
        defer { broker.stop() }
        let database = try Database(path: directory.file("mqtt.db"), migrations: Migration.numbered([Outbox.schema] + Outbox.changes))
        let outbox = Outbox(database: database, sinks: [.mqtt])
        for start in stride(from: 0, to: total, by: 10_000) { try outbox.append(UploadBench.samples(10_000, from: start)) }

        // The payloads the sink sends (seq 1…total, 500 to a batch), for paho.
        var payloads = Data()
        for start in stride(from: 0, to: total, by: 500) {
            let queued = UploadBench.samples(500, from: start).enumerated().map { QueuedSample(seq: Int64(start + $0.offset + 1), sample: $0.element) }
            payloads.append(contentsOf: Batch(samples: queued).json(deviceID: "gw-bench", seqRange: true) + [UInt8(ascii: "\n")])
        }
        try payloads.write(to: URL(fileURLWithPath: directory.file("payloads.ndjson")))

        var settings = MQTTSettings(host: "127.0.0.1", port: broker.port, tls: false, clientID: "waymark-bench")
        (settings.username, settings.password) = (broker.username, broker.password)
        let options = MQTTPublisher<ContinuousClock>.Options(deviceID: "gw-bench", topicPrefix: "bench/waymark", batchCount: 500, batchBytes: 512 << 10,
                                                             discovery: nil, retryCap: .seconds(5))
        let publisher = try MQTTPublisher(settings: settings, outbox: outbox, options: options, labels: [:], clock: ContinuousClock(),
                                          isAuthorized: { true }, state: { GatewayState(armed: true, running: true, trip: nil, queueDepth: 0, scanMode: nil) })
        let events = publisher.events
        await publisher.start()
        let seconds = try await measure {
            for await event in events {
                if case .published(_, let last) = event, last == Int64(total) { break }
                if case .failed(let error) = event { throw error }
            }
        }
        await publisher.stop()
        let ours = Double(total) / seconds
        let venv = try PythonPeers.environment()
        let paho = try PythonPeers.rate(python: venv + "/bin/python", script: "mqtt_publisher.py",
                                        [String(broker.port), broker.username, broker.password, directory.file("payloads.ndjson"), String(total)],
                                        in: directory)
        report.add("mqtt.published", ours, unit: "samples/s", baseline: paho, baselineName: "paho-mqtt 1.6.1",
                   note: "\(total) fix samples from the outbox to a loopback mosquitto, QoS 1, 500 per message, 8 in flight, the cursor committed per 4 PUBACKs")
    }
}
