import Foundation
import Gateway
import Peers
import Session
import Storage
import Telemetry
import Upload

/// The process the kill -9 soak test runs and kills: it records synthetic
/// samples at about 400/s while uploading them, and prints each committed
/// range (`committed FIRST LAST`) only after its transaction returned. With
/// `drain` it records nothing, uploads what is queued, and exits.
enum UploadSoak {
    static let deviceID = "gw-soak"

    static func run(database path: String, issuer: String, backend: String, mode: String) async throws {
        let database = try Database(path: path, migrations: Migration.numbered([SessionStore.schema] + SessionStore.changes + [Outbox.schema] + Outbox.changes))
        let session = Glewlwyd.sessionManager(issuer: issuer, backend: backend, database: database)
        var options = Configuration().upload.options
        options.batchCount = 50
        options.batchAge = .milliseconds(20)
        options.retryBase = .milliseconds(5)
        options.retryCap = .milliseconds(100)
        options.requestTimeout = .seconds(2)
        let outbox = Outbox(database: database)
        let uploader = Uploader(outbox: outbox, deviceID: deviceID, authorization: SessionUploadAuthorization(session), baseURL: { await session.apiBaseURL },
                                options: options, clock: ContinuousClock(), now: { Date().timeIntervalSince1970 })
        await uploader.start()
        // The seed's pending flush: whatever a killed run left behind goes first.
        uploader.flush()
        if mode == "drain" {
            for await event in uploader.events where event == .drained { break }
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
            await uploader.samplesAdded(samples.count)
            try await Task.sleep(for: .milliseconds(5))
        }
    }
}
