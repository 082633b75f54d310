public import Advertisements
public import Vocabulary

/// What a sample says, as Swift values. `SampleEncoder` alone turns it into
/// the wire's JSON members.
public enum SamplePayload: Sendable, Equatable {
    /// A position, with gpsd's TPV names on the wire.
    case fix(Fix)
    /// The paired vehicle beacon's signal strength (dBm), if BlueZ gave one.
    case beacon(rssi: Int?)
    /// A paired sensor tag's decoded advert; `sensor` is its pairing's id (`pairing-3`).
    case sensor(SensorID, Advertisement)
    /// A recorded event (its details sorted by name on the wire).
    case event(Event)
    /// The radio over one health interval.
    case radioHealth(RadioHealth)
    /// What the gateway runs, at start and whenever it changes.
    case gatewayInfo(GatewayInfo)

    public var kind: SampleKind {
        switch self {
        case .fix: .fix
        case .beacon: .beacon
        case .sensor: .sensor
        case .event: .event
        case .radioHealth: .radioHealth
        case .gatewayInfo: .gatewayInfo
        }
    }
}
