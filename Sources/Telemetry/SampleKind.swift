/// What a sample records: the wire's `kind`.
public enum SampleKind: String, Sendable, Equatable, Codable, CaseIterable {
    case fix, beacon, sensor, event
    case radioHealth = "radio_health"
    case gatewayInfo = "gateway_info"
}
