import FoundationEssentials

/// A trip as `waymark trips` lists it.
struct StoredTrip: Sendable, Equatable, Encodable {
    var id: String
    var start: Date
    var end: Date?
    var endReason: String?
    /// Positions kept for export, and the track length through them.
    var points = 0
    var distanceMeters = 0.0
}
