public import Advertisements
public import Telemetry
public import Vocabulary

/// What the runtime observed, reduced to what recording needs. The gateway
/// maps BlueZ sightings and location fixes into these. Times are seconds on
/// the boot clock.
public enum Observation: Sendable, Equatable {
    /// The paired vehicle beacon, with its signal strength (dBm).
    case vehicle(rssi: Int?, at: Double)
    /// A paired sensor tag's decoded advert, and its pairing's id (`pairing-3`).
    case sensor(id: SensorID, advert: Advertisement, at: Double)
    /// A position fix.
    case fix(Fix, at: Double)

    public var time: Double {
        switch self {
        case .vehicle(_, let at), .sensor(_, _, let at), .fix(_, let at): at
        }
    }
}
