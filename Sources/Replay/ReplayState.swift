import Recorder
import Recording
import Telemetry

/// What a replay carries from record to record.
struct ReplayState {
    var stamper: SampleStamper
    var core: RecordingCore
    var location: ReplayedLocation
    let meter = RadioHealthMeter()
    var counts: [SampleKind: Int] = [:]
    /// The trips this replay started or continued.
    var tripIDs: Set<String> = []
}
