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

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: NamedKey.self)
        for measurement in measurements { try container.encode(values[measurement], forKey: NamedKey(stringValue: measurement.rawValue)) }
        try container.encode(time, forKey: NamedKey(stringValue: "time"))
    }
}
