import FoundationEssentials
import Glibc
import Storage
package import Telemetry
package import Vocabulary

/// One position of a trip, as kept for export.
package struct TripPoint: Sendable, Equatable {
    package var tripID: TripID
    package var time: Double
    package var lat: Double
    package var lon: Double
    package var alt: Double?
    /// The receiver's own speed (m/s), satellites used and horizontal error
    /// estimate (m, gpsd's `eph`), where it gave them.
    package var speed: Double? = nil
    package var satellites: Int? = nil
    package var eph: Double? = nil
    /// The outbox sequence number of the fix; nil in a store older than the column.
    package var seq: Int64? = nil

    /// Great-circle distance in metres (haversine on the WGS84 mean radius).
    package func distance(to other: TripPoint) -> Double {
        let radius = 6_371_008.8
        let φ1 = lat * .pi / 180, φ2 = other.lat * .pi / 180
        let Δφ = φ2 - φ1, Δλ = (other.lon - lon) * .pi / 180
        let a = sin(Δφ / 2) * sin(Δφ / 2) + cos(φ1) * cos(φ2) * sin(Δλ / 2) * sin(Δλ / 2)
        return 2 * radius * asin(min(1, a.squareRoot()))
    }
}

extension [TripPoint] {
    /// The length of the track through the points in order, in metres.
    package var pathLength: Double {
        zip(self, dropFirst()).reduce(0) { $0 + $1.0.distance(to: $1.1) }
    }
}

extension TripPoint {
    /// A fix sample's position, for its trip's track, dated by the receiver's
    /// time where it sent one.
    package init?(_ sample: Sample) {
        guard case .fix(let fix) = sample.payload, let tripID = sample.tripID, let lat = fix.lat, let lon = fix.lon else { return nil }
        // Clamped: a receiver's figures are outside input.
        self.init(tripID: tripID, time: fix.time ?? sample.time, lat: lat, lon: lon, alt: fix.altMSL,
                  speed: fix.speed.flatMap { $0.isFinite ? min(max($0, 0), 1000) : nil },
                  satellites: fix.satellitesUsed.map { min(max($0, 0), 255) },
                  // No receiver's error is zero: that is an HDOP it did not have (gpsbabel writes 0.0).
                  eph: fix.eph.flatMap { $0.isFinite && $0 > 0 ? min($0, 100_000) : nil })
    }
}

extension TripPoint {
    /// Speed, satellites and eph as the columns of the same names take them.
    var quality: [SQLValue] {
        [speed.map { .real($0) } ?? .null, satellites.map { .integer(Int64($0)) } ?? .null, eph.map { .real($0) } ?? .null]
    }
}
