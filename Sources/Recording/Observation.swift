/// What the runtime observed, reduced to what recording needs. The gateway
/// maps BlueZ sightings and location fixes into these.
public enum Observation: Sendable, Equatable {
    /// The paired vehicle beacon, with its signal strength (dBm).
    case vehicle(rssi: Int?, at: Double)
    /// A paired sensor tag's reading: its pairing id and the reading as JSON
    /// members (`"temperature":21.5,"humidity":40`).
    case sensor(id: String, fields: String, at: Double)
    /// A position fix as JSON members in gpsd's TPV names.
    case fix(fields: String, at: Double)

    public var time: Double {
        switch self {
        case .vehicle(_, let at), .sensor(_, _, let at), .fix(_, let at): at
        }
    }
}
