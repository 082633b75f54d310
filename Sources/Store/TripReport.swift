import Basics
import FoundationEssentials
import Pairings
import Storage
package import Telemetry
package import Vocabulary

/// Everything the trip report shows, read from the store in one go.
package struct TripReport: Sendable {
    /// What became of the trip's samples.
    package struct Uploads: Sendable, Equatable {
        package var recorded = 0
        package var queued = 0
        package var acknowledged = 0
        package var deadLettered = 0
        /// Dropped by the queue's size cap.
        package var dropped = 0
    }

    package var trip: StoredTrip
    package var points: [TripPoint]
    package var readings: [TripReading]
    /// From five minutes before the start to five minutes after the end.
    package var events: [StoredEvent]
    /// Positions and readings by the source of their time (`gnss`, `ntp`, `unsynced`).
    package var timeSources: [String: Int]
    package var uploads: Uploads
    /// The sequence numbers of the trip's samples still in the outbox.
    package var queuedSeqs: Set<Int64>
    package var sensorLabels: SensorLabels
    package var beaconLostTimeout: Double
    /// At most one beacon sample per this many seconds (`BeaconInterval`).
    package var beaconInterval: Double

    /// The report of `tripID`; nil when there is no such trip.
    package static func gather(_ store: GatewayStore, tripID: TripID, beaconLostTimeout: Double, beaconInterval: Double) throws -> TripReport? {
        let recordings = RecordingStore(database: store.database)
        guard let trip = try recordings.trips().first(where: { $0.id == tripID }) else { return nil }
        let start = trip.start.timeIntervalSince1970
        let end = trip.end?.timeIntervalSince1970 ?? Double.greatestFiniteMagnitude / 2
        let (uploads, timeSources, queuedSeqs) = try store.database.read { connection in
            var uploads = Uploads()
            let row = try connection.rows("SELECT samples, first_seq, last_seq FROM trip WHERE id = ?", [.text(tripID)]) {
                ($0.integer(0), $0.isNull(1) ? nil : $0.integer(1), $0.isNull(2) ? nil : $0.integer(2))
            }.first
            uploads.recorded = Int(row?.0 ?? 0)
            uploads.queued = Int(try connection.scalar("SELECT count(*) FROM outbox WHERE trip_id = ?", [.text(tripID)])?.integer ?? 0)
            let queuedSeqs = Set(try connection.rows("SELECT seq FROM outbox WHERE trip_id = ?", [.text(tripID)]) { $0.integer(0) })
            if let first = row?.1, let last = row?.2 {
                // Whole batches are dead-lettered or dropped: the overlap of their ranges with the trip's.
                func overlap(_ table: String) -> String {
                    "SELECT coalesce(sum(min(last_seq, ?) - max(first_seq, ?) + 1), 0) FROM \(table) WHERE first_seq <= ? AND last_seq >= ?"
                }
                let arguments: [SQLValue] = [.integer(last), .integer(first), .integer(last), .integer(first)]
                uploads.deadLettered = Int(try connection.scalar(overlap("dead_letter"), arguments)?.integer ?? 0)
                uploads.dropped = Int(try connection.scalar(overlap("dropped_range"), arguments)?.integer ?? 0)
            }
            uploads.acknowledged = max(0, uploads.recorded - uploads.queued - uploads.deadLettered - uploads.dropped)
            var sources: [String: Int] = [:]
            for (source, count) in try connection.rows("SELECT coalesce(time_source, 'unknown'), count(*) FROM trip_point WHERE trip_id = ? GROUP BY 1", [.text(tripID)], { ($0.text(0) ?? "unknown", Int($0.integer(1))) }) {
                sources[source, default: 0] += count
            }
            return (uploads, sources, queuedSeqs)
        }
        return TripReport(
            trip: trip, points: try recordings.points(of: tripID), readings: try recordings.readings(of: tripID),
            events: try store.events(from: start - 300, to: end + 300), timeSources: timeSources, uploads: uploads, queuedSeqs: queuedSeqs,
            sensorLabels: try PairingStore(database: store.database).sensorLabels(), beaconLostTimeout: beaconLostTimeout,
            beaconInterval: beaconInterval)
    }
}
