import Basics
import Session

/// `[MQTT] Broker`: `mqtts://host[:8883]`, or plain `mqtt://host[:1883]`
/// only to this machine, by the same rule as HTTP.
public struct MQTTBroker: Sendable, Equatable {
    public var host: String
    public var port: Int
    public var tls: Bool

    /// `host:port`.
    public var address: String { "\(host):\(port)" }

    /// Parses `text`, or says why not.
    static func parse(_ text: String) -> Result<MQTTBroker, EndpointURL.Refusal> {
        EndpointURL.parse(text, secure: "mqtts", plain: "mqtt", securePort: 8883, plainPort: 1883).map {
            MQTTBroker(host: $0.host, port: $0.port, tls: $0.secure)
        }
    }

    /// Parses a comma-separated list (the nodes of one cluster), or says
    /// why not: each must parse, none twice, all with TLS or none.
    static func parseList(_ text: String) -> Result<[MQTTBroker], MQTTBroker.ListRefusal> {
        let items = text.split(separator: ",", omittingEmptySubsequences: false).map { String($0).trimmingWhitespace() }
        var brokers: [MQTTBroker] = []
        var addresses: Set<String> = []
        for item in items {
            switch parse(item) {
            case .success(let broker):
                guard addresses.insert(broker.address).inserted else { return .failure(ListRefusal(message: "\(broker.address) is listed twice")) }
                brokers.append(broker)
            case .failure(let refusal):
                return .failure(ListRefusal(message: items.count > 1 ? "\(item.isEmpty ? "an empty entry" : item): \(refusal.message)" : refusal.message))
            }
        }
        guard Set(brokers.map(\.tls)).count == 1 else { return .failure(ListRefusal(message: "every broker in the list takes mqtts://, or every one mqtt://")) }
        return .success(brokers)
    }

    /// Why a list of brokers was refused.
    struct ListRefusal: Error {
        let message: String
    }
}
