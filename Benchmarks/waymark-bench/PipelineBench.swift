import Advertisements
import Config
import Foundation
import Peers
import Recording
import Storage
import Telemetry
import Upload

/// Sightings through the recording pipeline: decode the vehicle beacon's
/// advert, run the trip recorder, commit what it keeps to the outbox (one
/// transaction per 1000 sightings).
struct PipelineBench {
    var quick: Bool

    func run(into report: inout BenchReport) throws {
        let directory = try TemporaryDirectory("waymark-bench-pipeline")
        defer { directory.remove() }
        let outbox = Outbox(database: try Database(path: directory.file("pipeline.db"), migrations: Migration.numbered([Outbox.schema] + Outbox.changes)))
        let count = quick ? 200_000 : 2_000_000
        let uuid: [UInt8] = [0xE2, 0xC5, 0x6D, 0xB5, 0xDF, 0xFB, 0x48, 0xD2, 0xB0, 0x60, 0xD0, 0xF5, 0xA7, 0x10, 0x96, 0xE0]
        let advert: [UInt8] = [0x02, 0x15] + uuid + [0x00, 0x01, 0x00, 0x02, 0xC5]
        let recording = Configuration().recording
        var recorder = TripRecorder(trips: recording.tripOptions, samples: recording.sampleOptions)
        var pending: [Sample] = []
        var committed = 0
        let seconds = try measure {
            for index in 0..<count {
                let time = 1_796_000_000 + Double(index) * 0.01
                guard case .iBeacon = AdvertisementDecoder.decode(companyID: 0x004C, advert) else { continue }
                for sample in recorder.observe(.vehicle(rssi: -60 - index % 20, at: time)) {
                    pending.append(Sample(time: sample.time, tripID: sample.tripID, payload: sample.payload))
                }
                if index % 1000 == 999 {
                    committed += pending.count
                    try outbox.append(pending)
                    pending.removeAll(keepingCapacity: true)
                }
            }
        }
        report.add("pipeline.sightings", Double(count) / seconds, unit: "sightings/s",
                   note: "iBeacon decode → trip recorder → outbox commit, \(committed) samples committed in \(count / 1000) transactions")
    }
}
