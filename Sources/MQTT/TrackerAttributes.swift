internal import Telemetry

/// The last fix on `{prefix}/location`, in Home Assistant's device_tracker
/// attributes: latitude, longitude and gps_accuracy (metres) place the car.
struct TrackerAttributes: Encodable, Equatable {
    var latitude: Double
    var longitude: Double
    var gpsAccuracy: Double?
    var altitude: Double?
    /// m/s.
    var speed: Double?
    /// Degrees from true north.
    var course: Double?

    enum CodingKeys: String, CodingKey {
        case latitude, longitude, gpsAccuracy = "gps_accuracy", altitude, speed, course
    }

    /// Nil for a fix without a position. A value that is not finite is left
    /// out (JSON has no NaN), not allowed to spoil the rest.
    init?(_ fix: Fix) {
        guard let latitude = fix.lat, let longitude = fix.lon, latitude.isFinite, longitude.isFinite else { return nil }
        (self.latitude, self.longitude) = (latitude, longitude)
        func finite(_ value: Double?) -> Double? { value.flatMap { $0.isFinite ? $0 : nil } }
        gpsAccuracy = finite(fix.eph)
        altitude = finite(fix.altMSL) ?? finite(fix.altHAE)
        (speed, course) = (finite(fix.speed), finite(fix.track))
    }
}
