import Basics
import CLI
import Capture
import Daemon
import FoundationEssentials
import Replay
import Store
import Telemetry

/// What `waymark replay` prints.
struct ReplaySummary: Encodable {
    var records: Int
    var complete: Bool
    /// Where a cut or damaged capture stopped.
    var stoppedAt: String?
    var from: String?
    var to: String?
    var seconds: Double
    var trips: [StoredTrip]
    var samples: [String: Int]

    init(_ outcome: ReplayOutcome, seconds: Double) {
        records = outcome.records
        switch outcome.stop {
        case .complete: complete = true
        case .cut(let after, let byte): (complete, stoppedAt) = (false, "cut after record \(after), byte \(byte) of the file")
        case .damaged(let after, let byte, let reason): (complete, stoppedAt) = (false, "damaged after record \(after), byte \(byte) of the file: \(reason)")
        }
        from = outcome.from.map(CivilTime.iso8601)
        to = outcome.to.map(CivilTime.iso8601)
        self.seconds = (seconds * 1000).rounded() / 1000
        trips = outcome.trips
        samples = Dictionary(uniqueKeysWithValues: SampleKind.allCases.map { ($0.rawValue, outcome.samples[$0] ?? 0) })
    }

    var text: String {
        var lines = ["replayed \(records) records (\(from ?? "-") to \(to ?? "-")) in \(seconds) s" + (stoppedAt.map { "; \($0)" } ?? "")]
        lines.append("trips: \(trips.count)")
        for trip in trips {
            let end = trip.end.map { CivilTime.iso8601($0.timeIntervalSince1970) } ?? "open"
            lines.append("  \(trip.id)  \(CivilTime.iso8601(trip.start.timeIntervalSince1970)) to \(end)  \(trip.points) points, \(Int(trip.distanceMeters)) m")
        }
        lines.append("samples: " + samples.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
        return lines.joined(separator: "\n")
    }
}
