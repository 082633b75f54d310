internal import Basics
internal import FoundationEssentials
internal import Telemetry
import Vocabulary

/// Reads back the samples of a dead letter (the JSON array that was sent),
/// without their sequence numbers, which the queue assigns anew.
enum DeadLetterSamples {
    static func parse(_ json: String) -> [QueuedSample] {
        guard let array = try? JSONDecoder().decode([JSONValue].self, from: Data(json.utf8)) else { return [] }
        return array.compactMap { element in
            guard case .object(var object) = element,
                  let time = object["time"]?.string.flatMap(CivilTime.parseISO8601),
                  let kind = object["kind"]?.string.flatMap(SampleKind.init(rawValue:)) else { return nil }
            let tripID = object["trip_id"]?.string.map(TripID.init(rawValue:))
            let source = object["time_source"]?.string.flatMap(TimeSource.init(rawValue:)) ?? .unsynced
            for key in ["seq", "time", "trip_id", "time_source", "kind"] { object[key] = nil }
            var sample = QueuedSample(seq: 0, time: time, tripID: tripID, kind: kind, fields: JSONValue.members(object), timeSource: source)
            sample.bytes = Batch.size(of: sample)
            return sample
        }
    }
}
