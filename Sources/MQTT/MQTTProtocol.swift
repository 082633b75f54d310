/// Which MQTT the client speaks: `[MQTT] Protocol`.
public enum MQTTProtocol: String, Sendable, Equatable, CaseIterable {
    case v5 = "5"
    case v311 = "3.1.1"
    /// MQTT 5 first; 3.1.1 when the broker refuses 5's version (the
    /// clustered brokers Debian ships, nats-server and RabbitMQ, speak 3.1.1 only).
    case auto

    /// What a log line or `mqtt test` calls the version spoken.
    public var name: String {
        switch self {
        case .v5: "MQTT 5"
        case .v311: "MQTT 3.1.1"
        case .auto: "MQTT 5 or 3.1.1"
        }
    }
}
