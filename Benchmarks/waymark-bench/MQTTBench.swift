import Foundation
import MQTT
import Peers
import Storage
import Telemetry
import Upload

/// Samples published at QoS 1 to a local mosquitto by the MQTT sink (from
/// the outbox, PUBACK moving its cursor), against paho-mqtt publishing the
/// same batch payloads to the same broker, one in flight (as its
/// `wait_for_publish` loop does). Beside them, the transport's own ceiling:
/// libmosquitto (our `MQTTClient`) sending the same payloads, already
/// encoded and with no queue behind them, 8 in flight as the sink does.
/// Three rounds, interleaved; each figure is the median.
struct MQTTBench {
    var quick: Bool

    func run(into report: inout BenchReport) async throws {
        let total = quick ? 20_000 : 200_000
        let directory = try TemporaryDirectory("waymark-bench-mqtt")
        defer { directory.remove() }
        let broker = try Mosquitto(directory: directory)
        defer { broker.stop() }

        // The payloads the sink sends (seq 1…total, 500 to a batch), for paho and the ceiling.
        var payloads: [[UInt8]] = []
        for start in stride(from: 0, to: total, by: 500) {
            let queued = UploadBench.samples(500, from: start).enumerated().map { QueuedSample(seq: Int64(start + $0.offset + 1), sample: $0.element) }
            payloads.append(Batch(samples: queued).json(deviceID: "gw-bench", seqRange: true))
        }
        try Data(payloads.joined(separator: [UInt8(ascii: "\n")])).write(to: URL(fileURLWithPath: directory.file("payloads.ndjson")))
        let venv = try PythonPeers.environment()

        var ours: [Double] = [], paho: [Double] = [], ceiling: [Double] = [], sql: [Double] = []
        for round in 0..<3 {
            ours.append(try await sink(total: total, broker: broker, directory: directory, round: round))
            sql.append(try outboxSQL(total: total, directory: directory, round: round))
            paho.append(try PythonPeers.rate(python: venv + "/bin/python", script: "mqtt_publisher.py",
                                             [String(broker.port), broker.username, broker.password, directory.file("payloads.ndjson"), String(total)],
                                             in: directory))
            ceiling.append(try await transport(payloads, samples: total, broker: broker, round: round))
        }
        report.add("mqtt.published", runs: ours, unit: "samples/s", baselineRuns: paho, baselineName: "paho-mqtt 1.6.1",
                   note: "\(total) fix samples from the outbox to a loopback mosquitto, QoS 1, 500 per message, 8 in flight, the cursor committed per 4 PUBACKs")
        report.add("mqtt.transport", runs: ceiling, unit: "samples/s", baselineRuns: paho, baselineName: "paho-mqtt 1.6.1",
                   note: "the same payloads already encoded, sent by libmosquitto with no queue behind them, 8 in flight: the broker's ceiling for any client")
        report.add("mqtt.outbox_sql", runs: sql, unit: "samples/s", baselineRuns: paho, baselineName: "paho-mqtt 1.6.1",
                   note: "the SQL the sink cannot skip, alone: each batch's 500 rows selected (every column read in place) and deleted once acknowledged, per 2,000")
    }

    /// The outbox's statements with nothing around them: the sink's floor in SQLite.
    private func outboxSQL(total: Int, directory: TemporaryDirectory, round: Int) throws -> Double {
        let database = try Self.filledOutbox(total: total, path: directory.file("sql-\(round).db")).database
        let select = "SELECT seq, time, trip_id, kind, fields, bytes, time_source FROM outbox WHERE seq > ? ORDER BY seq LIMIT 500"
        return Double(total) / (try measure {
            var after: Int64 = 0, bytes = 0
            for batch in 1...(total / 500) {
                try database.read { connection in
                    for last in try connection.rows(select, [.integer(after)], { row in
                        // Every column read, as the sink reads them; the texts in place.
                        _ = (row.real(1), row.integer(5))
                        bytes += row.byteCount(2) + row.byteCount(3) + row.byteCount(4) + row.byteCount(6)
                        return row.integer(0)
                    }).suffix(1) { after = last }
                }
                if batch % 4 == 0 { try database.write { try $0.run("DELETE FROM outbox WHERE seq <= ?", [.integer(after)]) } }
            }
            guard bytes > 0 else { throw PeerError.startFailed("outbox", output: "no rows read") }
        })
    }

    /// The sink draining an outbox of `total` samples.
    private func sink(total: Int, broker: Mosquitto, directory: TemporaryDirectory, round: Int) async throws -> Double {
        let outbox = try Self.filledOutbox(total: total, path: directory.file("mqtt-\(round).db"))
        let settings = Self.settings(broker, clientID: "waymark-bench-\(round)")
        let options = MQTTPublisher<ContinuousClock>.Options(deviceID: "gw-bench", topicPrefix: "bench/waymark", batchCount: 500, batchBytes: 512 << 10,
                                                             discovery: nil, retryCap: .seconds(5))
        let publisher = try MQTTPublisher(settings: settings, outbox: outbox, options: options, labels: SensorLabels([]), clock: ContinuousClock(),
                                          isAuthorized: { true }, state: { GatewayState(armed: true, running: true, trip: nil, queueDepth: 0, scanMode: nil) })
        let events = publisher.events
        let running = Task { await publisher.run() }
        let seconds = try await measure {
            for await event in events {
                if case .published(_, let last) = event, last == Int64(total) { break }
                if case .failed(let error) = event { throw error }
            }
        }
        running.cancel()
        await running.value
        return Double(total) / seconds
    }

    /// libmosquitto alone: `payloads` published as fast as PUBACKs allow, 8 in flight.
    private func transport(_ payloads: [[UInt8]], samples: Int, broker: Mosquitto, round: Int) async throws -> Double {
        let client = try MQTTClient(Self.settings(broker, clientID: "waymark-bench-raw-\(round)"))
        var events = client.events.makeAsyncIterator()
        client.connect()
        guard case .connected = await events.next() else { throw PeerError.startFailed("mosquitto", output: "the ceiling's client did not connect") }
        let seconds = try await measure {
            var next = 0, acknowledged = 0
            while next < min(8, payloads.count) {
                try client.publish("bench/raw/samples", payloads[next])
                next += 1
            }
            while acknowledged < payloads.count, let event = await events.next() {
                guard case .published = event else { continue }
                acknowledged += 1
                if next < payloads.count {
                    try client.publish("bench/raw/samples", payloads[next])
                    next += 1
                }
            }
        }
        client.disconnect(sendingWill: false)
        return Double(samples) / seconds
    }

    /// An outbox for the MQTT sink holding `total` fix samples.
    private static func filledOutbox(total: Int, path: String) throws -> Outbox {
        let database = try Database(path: path, migrations: Migration.numbered([Outbox.schema] + Outbox.changes))
        let outbox = Outbox(database: database, sinks: [.mqtt])
        for start in stride(from: 0, to: total, by: 10_000) { try outbox.append(UploadBench.samples(10_000, from: start)) }
        return outbox
    }

    private static func settings(_ broker: Mosquitto, clientID: String) -> MQTTSettings {
        var settings = MQTTSettings(host: "127.0.0.1", port: broker.port, tls: false, clientID: clientID)
        (settings.username, settings.password) = (broker.username, broker.password)
        return settings
    }
}
