internal import Foundation
internal import Basics

/// Reads back the samples of a dead letter (the JSON array that was sent).
enum DeadLetterSamples {
    static func parse(_ json: String) -> [Sample] {
        guard let array = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]] else { return [] }
        return array.compactMap { object in
            guard let time = (object["time"] as? String).flatMap(CivilTime.parseISO8601),
                  let kind = (object["kind"] as? String).flatMap(Sample.Kind.init(rawValue:)) else { return nil }
            var rest = object
            for key in ["seq", "time", "trip_id", "kind"] { rest[key] = nil }
            let fields = (try? JSONSerialization.data(withJSONObject: rest, options: [.sortedKeys])).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
            return Sample(time: time, tripID: object["trip_id"] as? String, kind: kind, fields: String(fields.dropFirst().dropLast()))
        }
    }
}
