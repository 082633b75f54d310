import FoundationEssentials
import Glibc
package import Telemetry
package import Vocabulary

/// One position of a trip, as kept for export.
package struct TripPoint: Sendable, Equatable {
    package var tripID: TripID
    package var time: Double
    package var lat: Double
    package var lon: Double
    package var alt: Double?

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
        self.init(tripID: tripID, time: fix.time ?? sample.time, lat: lat, lon: lon, alt: fix.altMSL)
    }
}
