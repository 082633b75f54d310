package import FoundationEssentials
package import Vocabulary

/// A trip as `waymark trips` lists it.
package struct StoredTrip: Sendable, Equatable, Encodable {
    package var id: TripID
    package var start: Date
    package var end: Date?
    package var endReason: String?
    /// Positions kept for export, and the track length through them.
    package var points = 0
    package var distanceMeters = 0.0
}
