import Basics
package import MQTT

extension Configuration {
    /// The broker settings from `[MQTT]`, or nil with no `Broker`; the
    /// password is read from `PasswordFile` now.
    package func mqttSettings(deviceID: String) throws(SecretFile.Problem) -> MQTTSettings? {
        guard let first = mqtt.brokers.first else { return nil }
        var settings = MQTTSettings(brokers: mqtt.brokers.map { BrokerAddress(host: $0.host, port: $0.port) }, tls: first.tls,
                                    clientID: Self.expand(mqtt.clientID, deviceID: deviceID))
        settings.username = mqtt.username
        settings.password = try mqtt.passwordFile.map { path throws(SecretFile.Problem) in try SecretFile.read(path) }
        (settings.caFile, settings.certFile, settings.keyFile) = (mqtt.caFile, mqtt.certFile, mqtt.keyFile)
        settings.protocolVersion = mqtt.protocolVersion
        return settings
    }

    package func mqttTopicPrefix(deviceID: String) -> String { Self.expand(mqtt.topicPrefix, deviceID: deviceID) }

    package func homeAssistantDiscovery(deviceID: String) -> HomeAssistantDiscovery? {
        guard mqtt.discovery else { return nil }
        return HomeAssistantDiscovery(prefix: mqtt.discoveryPrefix, topicPrefix: mqttTopicPrefix(deviceID: deviceID), deviceID: deviceID,
                                      version: Waymark.version)
    }

    private static func expand(_ text: String, deviceID: String) -> String {
        text.replacing("{device_id}", with: deviceID)
    }
}
