import Advertisements
package import Telemetry
package import Vocabulary

/// One value of a trip's timeline, kept for the trip report after the
/// samples themselves have been uploaded: the vehicle beacon's RSSI, or a
/// sensor's quantity.
package struct TripReading: Sendable, Equatable {
    package var tripID: TripID
    package var time: Double
    /// `beacon`, or the sensor's pairing id (`pairing-3`).
    package var source: String
    /// `rssi`, or a `Quantity`'s name.
    package var quantity: String
    package var value: Double
    /// The outbox sequence number of the sample it came from; nil in a store older than the column.
    package var seq: Int64?

    package init(tripID: TripID, time: Double, source: String, quantity: String, value: Double, seq: Int64? = nil) {
        (self.tripID, self.time, self.source, self.quantity, self.value, self.seq) = (tripID, time, source, quantity, value, seq)
    }

    /// A sample's values: a beacon's RSSI, a sensor's quantities.
    package static func readings(of sample: Sample) -> [TripReading] {
        guard let tripID = sample.tripID else { return [] }
        switch sample.payload {
        case .beacon(let rssi?):
            return [TripReading(tripID: tripID, time: sample.time, source: "beacon", quantity: "rssi", value: Double(rssi))]
        case .sensor(let id, let advert):
            return advert.quantities.sorted { $0.key.rawValue < $1.key.rawValue }.map {
                TripReading(tripID: tripID, time: sample.time, source: id.rawValue, quantity: $0.key.rawValue, value: $0.value)
            }
        default:
            return []
        }
    }
}
