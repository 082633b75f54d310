import Basics
import Gateway
import Recording
import Storage
import Telemetry
import Upload

/// Committing what the trip recorder decided: the daemon and replay share it.
extension SampleStamper {
    /// A trip that started or ended among recorded samples, with its wall-clock time.
    struct TripChange {
        var id: String
        var action: TripDetector.Action
        var at: Double

        /// The event the store records for a start or an end; nil for a resumption.
        var event: (kind: String, detail: [String: String])? {
            let detail = ["trip_id": id, "at": CivilTime.iso8601(at)]
            switch action {
            case .started: return ("tripStarted", detail)
            case .ended: return ("tripEnded", detail)
            case .resumed: return nil
            }
        }
    }

    /// Stores the trips that start and end among `recorded`.
    func recordTrips(_ recorded: [RecordedSample], in recordings: RecordingStore) -> [TripChange] {
        recorded.compactMap { sample in
            guard let action = sample.tripAction, let id = sample.tripID else { return nil }
            let stamped = stamp(sample.time)
            let (at, unsynced) = (stamped.time, stamped.source == .unsynced ? (stamped.reading.bootID, sample.time) : nil)
            switch action {
            case .started: try? recordings.tripStarted(id, at: at, unsynced: unsynced)
            case .ended(_, let reason): try? recordings.tripEnded(id, at: at, reason: reason.rawValue, unsynced: unsynced)
            case .resumed: break
            }
            return TripChange(id: id, action: action, at: at)
        }
    }

    /// Stamps `recorded` and appends them to the outbox, with their
    /// positions and readings to their trips' timelines, in one transaction.
    /// A timeline that cannot be written costs the report, never the samples.
    mutating func append(_ recorded: [RecordedSample], to outbox: Outbox, tracks recordings: RecordingStore) throws -> [Sample] {
        let samples = recorded.map { sample($0) }
        try outbox.append(samples) { connection, seqs in recordings.track(samples, seqs: seqs, on: connection) }
        return samples
    }
}
