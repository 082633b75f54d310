import Basics
import Session

/// `[MQTT] Broker`: `mqtts://host[:8883]`, or plain `mqtt://host[:1883]`
/// only to this machine, by the same rule as HTTP.
public struct MQTTBroker: Sendable, Equatable {
    public var host: String
    public var port: Int
    public var tls: Bool

    /// Parses `text`, or says why not.
    static func parse(_ text: String) -> Result<MQTTBroker, BrokerProblem> {
        let lower = text.lowercased()
        let tls: Bool
        if lower.hasPrefix("mqtts://") { tls = true } else if lower.hasPrefix("mqtt://") { tls = false } else {
            return .failure(BrokerProblem("expected mqtts://HOST:PORT (or mqtt:// to a loopback address)"))
        }
        let authority = text.dropFirst(tls ? 8 : 7).prefix { $0 != "/" }
        guard !authority.contains("@"), let (host, port) = parseHostPort(String(authority), defaultPort: tls ? 8883 : 1883) else {
            return .failure(BrokerProblem("has no valid host"))
        }
        guard tls || EndpointURL.isLoopback(host) else {
            return .failure(BrokerProblem("must use mqtts (plain mqtt is allowed only for loopback addresses)"))
        }
        return .success(MQTTBroker(host: host, port: port, tls: tls))
    }

    struct BrokerProblem: Error {
        var text: String
        init(_ text: String) { self.text = text }
    }
}
