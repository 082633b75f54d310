import Session

/// `[MQTT] Broker`: `mqtts://host[:8883]`, or plain `mqtt://host[:1883]`
/// only to this machine, by the same rule as HTTP.
public struct MQTTBroker: Sendable, Equatable {
    public var host: String
    public var port: Int
    public var tls: Bool

    /// Parses `text`, or says why not.
    static func parse(_ text: String) -> Result<MQTTBroker, EndpointURL.Refusal> {
        EndpointURL.parse(text, secure: "mqtts", plain: "mqtt", securePort: 8883, plainPort: 1883).map {
            MQTTBroker(host: $0.host, port: $0.port, tls: $0.secure)
        }
    }
}
