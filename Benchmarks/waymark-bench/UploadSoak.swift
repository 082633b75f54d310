import Config
import Foundation
import MQTT
import Peers
import Session
import Storage
import Telemetry
import Uplink
import Upload
import Vocabulary

/// The process the kill -9 soak test runs and kills: it records synthetic
/// samples at about 400/s while sending them to its sinks (`http`, `mqtt`
/// or both, the MQTT sink to the broker on `mqtt` = `PORT:USER:PASSWORD`),
/// and prints each committed range (`committed FIRST LAST`) only after its
/// transaction returned. With `drain` it records nothing, sends what is
/// queued, and exits once the outbox is empty.
enum UploadSoak {
    static let deviceID = "gw-soak"

    static func run(database path: String, issuer: String, backend: String, mode: String, sinks: [UploadSink] = [.http], mqtt: String? = nil) async throws {
        let database = try Database(path: path, migrations: Migration.numbered([SessionStore.schema] + SessionStore.changes + [Outbox.schema] + Outbox.changes))
        let session = Glewlwyd.sessionManager(issuer: issuer, backend: backend, database: database)
        var options = Configuration().upload.options
        options.batchCount = 50
        options.batchAge = .milliseconds(20)
        options.retryBase = .milliseconds(5)
        options.retryCap = .milliseconds(100)
        options.requestTimeout = .seconds(2)
        let outbox = Outbox(database: database, sinks: sinks)
        let uploader = sinks.contains(.http)
            ? Uploader(outbox: outbox, deviceID: deviceID, authorization: SessionUploadAuthorization(session), baseURL: { await session.apiBaseURL },
                       options: options, clock: ContinuousClock(), now: { Date().timeIntervalSince1970 })
            : nil
        var publisher: MQTTPublisher<ContinuousClock>?
        if sinks.contains(.mqtt), let parts = mqtt?.split(separator: ":", maxSplits: 2).map(String.init), parts.count == 3 {
            var settings = MQTTSettings(host: "127.0.0.1", port: Int(parts[0]) ?? 0, tls: false, clientID: "waymark-soak")
            (settings.username, settings.password) = (parts[1], parts[2])
            var sinkOptions = MQTTPublisher<ContinuousClock>.Options(deviceID: deviceID, topicPrefix: "soak/" + deviceID, batchCount: 50, batchBytes: 512 << 10,
                                                                     discovery: nil, retryCap: .milliseconds(100))
            sinkOptions.retryBase = .milliseconds(5)
            publisher = try MQTTPublisher(settings: settings, outbox: outbox, options: sinkOptions, labels: SensorLabels([]), clock: ContinuousClock(),
                                          isAuthorized: { await session.isAuthorized },
                                          state: { GatewayState(armed: true, running: true, trip: "soak", queueDepth: 0, scanMode: nil) })
        }
        // Killed from outside: the sinks run until then.
        if let uploader { Task { await uploader.run() } }
        if let publisher { Task { await publisher.run() } }
        // The seed's pending flush: whatever a killed run left behind goes first.
        uploader?.flush()
        if mode == "drain" {
            while try outbox.status().depth > 0 { try await Task.sleep(for: .milliseconds(20)) }
            print("drained")
            return
        }
        var n = 0
        while true {
            let samples = (0..<2).map { _ in
                n += 1
                var fix = Fix()
                (fix.mode, fix.lat, fix.lon, fix.satellitesUsed) = (3, 48.217558333, 8.414495, n)
                return Sample(time: Date().timeIntervalSince1970, tripID: "soak", payload: .fix(fix))
            }
            if let range = try outbox.append(samples) {
                print("committed \(range.lowerBound) \(range.upperBound)")
                fflush(nil)
            }
            await uploader?.samplesAdded(samples.count)
            await publisher?.samplesAdded(samples)
            try await Task.sleep(for: .milliseconds(5))
        }
    }
}
