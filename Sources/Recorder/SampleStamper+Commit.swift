import Basics
package import Recording
import Storage
import Store
package import Telemetry
import Upload
package import Vocabulary

/// Committing what the recording core decided: the daemon and replay share it.
extension SampleStamper {
    /// A trip that started or ended among recorded samples, with its wall-clock time.
    package struct TripChange: Sendable {
        package var id: TripID
        package var action: TripDetector.Action
        package var at: Double
        /// Where the time is not synchronized yet: the boot and its clock's reading, for a later re-stamp.
        package var unsynced: (id: String, time: Double)?

        package var verb: String {
            switch action {
            case .started: "started"
            case .resumed: "resumed"
            case .ended: "ended"
            }
        }

        /// The event the store records for a start or an end; nil for a resumption.
        package var event: Event? {
            let detail: [EventField: String] = [.tripID: id.rawValue, .at: CivilTime.iso8601(at)]
            switch action {
            case .started: return Event(.tripStarted, detail)
            case .ended: return Event(.tripEnded, detail)
            case .resumed: return nil
            }
        }

        /// The trip's row, on the commit's connection.
        func store(in recordings: RecordingStore, on connection: Connection) throws {
            switch action {
            case .started: try recordings.tripStarted(id, at: at, unsynced: unsynced, on: connection)
            case .ended(_, let reason): try recordings.tripEnded(id, at: at, reason: reason.rawValue, unsynced: unsynced, on: connection)
            case .resumed: break
            }
        }
    }

    /// Stamps `recorded` in order: each trip's start, samples and end take
    /// their times in one pass, so none of them goes back.
    package mutating func stamp(_ recorded: [RecordedSample]) -> [Sample] {
        recorded.map { sample($0) }
    }

    /// The trips that start and end among `recorded`, at the times their
    /// samples were `stamped` with.
    package func tripChanges(_ recorded: [RecordedSample], stamped: [Sample]) -> [TripChange] {
        zip(recorded, stamped).compactMap { sample, stamped in
            guard let action = sample.tripAction, let id = sample.tripID else { return nil }
            return TripChange(id: id, action: action, at: stamped.time, unsynced: stamped.timeSource == .unsynced ? stamped.boot : nil)
        }
    }

    /// Appends stamped `samples` to the outbox, with the rows of the trips
    /// they start and end, and their positions and readings to their trips'
    /// timelines, in one transaction: the samples and their trips' rows are
    /// stored together or not at all. A timeline that cannot be written
    /// costs the report, never the samples.
    package func append(_ samples: [Sample], trips: [TripChange]) throws(CommitError) {
        do {
            try outbox.append(samples) { connection, seqs in
                for trip in trips { try trip.store(in: recordings, on: connection) }
                recordings.track(samples, seqs: seqs, on: connection)
            }
        } catch {
            throw CommitError(underlying: error)
        }
    }
}
