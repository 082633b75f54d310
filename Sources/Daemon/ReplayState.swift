import Recording
import Telemetry

/// What a replay carries from record to record.
struct ReplayState {
    var stamper: SampleStamper
    var trips: TripRecorder
    var location: ReplayedLocation
    let meter = RadioHealthMeter()
    /// Between the captured `running` on and off: adverts and fixes count.
    var running = false
    var sleeping = false
    var counts: [SampleKind: Int] = [:]
    /// The trips this replay started or continued.
    var tripIDs: Set<String> = []

    var currentTrip: String? { trips.detector.isActive ? trips.tripID : nil }
}
