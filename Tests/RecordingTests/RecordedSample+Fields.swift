import Recording
import Telemetry

extension RecordedSample {
    /// The sample's JSON members as they will be queued: what the tests compare.
    var fields: String { SampleEncoder.members(payload) }
}
