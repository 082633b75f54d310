import Recorder
import Recording
import Telemetry
import Vocabulary

/// What a replay carries from record to record.
struct ReplayState {
    var executor: RecordingExecutor
    var location: ReplayedLocation
    let meter = RadioHealthMeter()
    var counts: [SampleKind: Int] = [:]
    /// The trips this replay started or continued.
    var tripIDs: Set<TripID> = []

    var core: RecordingCore { executor.core }

    /// What replay keeps of the executor's effects: the samples by kind, and the trips.
    mutating func keep(_ effects: [RecordingExecutor.Effect]) {
        for effect in effects {
            switch effect {
            case .committed(let samples, _): for sample in samples { counts[sample.kind, default: 0] += 1 }
            case .tripChanged(let change): tripIDs.insert(change.id)
            case .startScanning, .stopScanning, .reported, .announced: break
            }
        }
    }
}
