import FoundationEssentials
import Store
import Telemetry

/// The figures of a trip report's summary line, from the trip's samples.
struct TripSummary {
    /// Seconds; nil while the trip is open.
    let duration: Double?
    let distance: Double
    /// km/h over the whole trip; nil while it is open.
    let averageSpeed: Double?
    /// km/h, the fastest between positions at least a second apart.
    let topSpeed: Double?
    /// The share of the trip's time the beacon was heard: all but its
    /// `unheard` periods.
    let beaconShare: Double
    /// Where the beacon went unheard: between beacon samples (and from the
    /// trip's start, to its end) more than two `BeaconInterval`s apart, from
    /// one interval after the earlier.
    let unheard: [(from: Double, to: Double)]
    /// The longest time in the trip without a beacon sample, counting from its start and to its end.
    let longestBeaconGap: Double
    let uploaded: Int
    let pending: Int
    /// km/h at each position (`speeds(_:)`).
    let speeds: [Double]

    init(_ report: TripReport) {
        let trip = report.trip
        let start = trip.start.timeIntervalSince1970
        let end = trip.end?.timeIntervalSince1970
        duration = end.map { max(0, $0 - start) }
        distance = trip.distanceMeters
        averageSpeed = duration.flatMap { $0 > 0 ? trip.distanceMeters / $0 * 3.6 : nil }
        speeds = Self.speeds(report.points)
        topSpeed = report.points.count > 1 ? speeds.max() : nil
        let beacon = report.readings.filter { $0.source == "beacon" && $0.quantity == "rssi" }.map(\.time)
        let until = end ?? max(beacon.last ?? start, report.points.last?.time ?? start)
        let marks = [start] + beacon.filter { $0 >= start && $0 <= until } + [until]
        longestBeaconGap = zip(marks.dropFirst(), marks).map { $0 - $1 }.max() ?? 0
        let interval = max(report.beaconInterval, 0.001)
        unheard = zip(marks, marks.dropFirst()).compactMap { earlier, later in
            later - earlier > 2 * interval ? (earlier + interval, later) : nil
        }
        beaconShare = until > start ? max(0, 1 - unheard.reduce(0) { $0 + $1.to - $1.from } / (until - start)) : 1
        (uploaded, pending) = (report.uploads.acknowledged, report.uploads.queued)
    }

    /// km/h at each position: the receiver's own where it gave one, else
    /// from the latest position at least a second before it (the first
    /// positions take the first such speed), so that a 10 Hz receiver's
    /// jitter does not read as speed.
    static func speeds(_ points: [TripPoint]) -> [Double] {
        var speeds = [Double?](repeating: nil, count: points.count)
        var back = 0
        for index in points.indices {
            while back + 1 < index, points[index].time - points[back + 1].time >= 1 { back += 1 }
            let seconds = points[index].time - points[back].time
            if back < index, seconds >= 1 { speeds[index] = points[back].distance(to: points[index]) / seconds * 3.6 }
        }
        let first = speeds.lazy.compactMap { $0 }.first ?? 0
        return zip(points, speeds).map { point, derived in point.speed.map { $0 * 3.6 } ?? derived ?? first }
    }

    var beaconLine: String {
        "beacon heard \(Int((beaconShare * 100).rounded())) % of the trip, longest gap \(TripReportPage.duration(longestBeaconGap))"
    }

    var uploadLine: String { "\(uploaded) uploaded, \(pending) pending" }

    /// duration, distance, average and top speed, the beacon's share and gap, uploads.
    var line: String {
        [duration.map(TripReportPage.duration) ?? "still open", TripReportPage.distance(distance),
         averageSpeed.map { "average \(Int($0.rounded())) km/h" }, topSpeed.map { "top \(Int($0.rounded())) km/h" },
         beaconLine, uploadLine].compactMap { $0 }.joined(separator: " · ")
    }
}
