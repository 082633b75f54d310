/// How to reach the broker, as `[MQTT]` in the config says.
public struct MQTTSettings: Sendable, Equatable {
    /// The broker, or a cluster's nodes in the order they are tried; never empty.
    public var brokers: [BrokerAddress]
    /// `mqtts://`: TLS with verification (always on for TLS), for every broker.
    public var tls: Bool
    public var clientID: String
    public var username: String?
    public var password: String?
    /// CA certificates (PEM) to trust for the broker; nil for the system's.
    public var caFile: String?
    public var certFile: String?
    public var keyFile: String?
    /// Seconds; a ping goes out after half of it without traffic.
    public var keepAlive = 60
    /// Published by the broker when the connection dies without a goodbye.
    public var will: MQTTMessage?
    /// Which MQTT to speak; `auto` tries 5 and falls back to 3.1.1.
    public var protocolVersion = MQTTProtocol.auto

    public init(brokers: [BrokerAddress], tls: Bool, clientID: String) {
        precondition(!brokers.isEmpty, "a broker to connect to")
        (self.brokers, self.tls, self.clientID) = (brokers, tls, clientID)
    }

    /// One broker.
    public init(host: String, port: Int, tls: Bool, clientID: String) {
        self.init(brokers: [BrokerAddress(host: host, port: port)], tls: tls, clientID: clientID)
    }
}
