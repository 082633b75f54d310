internal import Telemetry
internal import Advertisements
internal import Basics

/// A paired sensor's latest reading on `{prefix}/sensor/{id}` (retained),
/// in the units Home Assistant's device classes expect.
struct SensorReading: Encodable, Equatable {
    var values: [Quantity: Double] = [:]
    /// When it was recorded, ISO 8601.
    var time: String

    init(_ advert: Advertisement, time: Double) {
        self.time = CivilTime.iso8601(time)
        values = advert.quantities
    }

    /// What it has, in a fixed order.
    var measurements: [Quantity] { Quantity.allCases.filter { values[$0] != nil } }

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        for measurement in measurements { try container.encode(values[measurement], forKey: Key(stringValue: measurement.rawValue)) }
        try container.encode(time, forKey: Key(stringValue: "time"))
    }
}
