package import Capture
package import Store
package import Telemetry

/// What a replay read and recorded.
package struct ReplayOutcome: Sendable {
    package var records: Int
    /// Whether the capture was read to its end, or where it stopped.
    package var stop: CaptureReader.Stop
    /// The wall-clock span of the records replayed.
    package var from: Double?
    package var to: Double?
    package var samples: [SampleKind: Int]
    package var trips: [StoredTrip]
}
