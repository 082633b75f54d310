internal import FoundationEssentials
public import Telemetry
public import Vocabulary

/// Home Assistant's MQTT discovery: one retained config message per entity,
/// on `{prefix}/{component}/waymark_{device}/{object}/config`, with the keys
/// of home-assistant.io's MQTT sensor, binary sensor and device tracker
/// pages. Every entity has a `unique_id`, a `device` block and the gateway's
/// `availability` topic; the sensor tags' devices hang `via_device` off the
/// gateway.
public struct HomeAssistantDiscovery: Sendable, Equatable {
    /// `homeassistant`.
    public var prefix: String
    /// Where the gateway publishes (`waymark/{device_id}`).
    public var topicPrefix: String
    public var deviceID: String
    public var version: String

    public init(prefix: String, topicPrefix: String, deviceID: String, version: String) {
        (self.prefix, self.topicPrefix, self.deviceID, self.version) = (prefix, topicPrefix, deviceID, version)
    }

    /// `waymark_{device}`, with only the characters discovery topics allow.
    var node: String { "waymark_" + Self.safe(deviceID) }

    /// The gateway's own entities: armed, running and in trip as binary
    /// sensors, the queue depth, and the car as a device tracker.
    public func gatewayMessages() -> [MQTTMessage] {
        let state = topicPrefix + "/state"
        func binary(_ object: String, _ name: String, _ key: String, deviceClass: String?) -> MQTTMessage {
            var config = entity(object, name)
            config["state_topic"] = .string(state)
            config["value_template"] = .string("{{ 'ON' if value_json.\(key) else 'OFF' }}")
            config["device_class"] = deviceClass.map { .string($0) }
            return message("binary_sensor", object, config)
        }
        var depth = entity("queue_depth", "Queue depth")
        depth["state_topic"] = .string(state)
        depth["value_template"] = .string("{{ value_json.queue_depth }}")
        depth["unit_of_measurement"] = .string("samples")
        depth["state_class"] = .string("measurement")
        var car = entity("car", "Car")
        car["json_attributes_topic"] = .string(topicPrefix + "/location")
        car["source_type"] = .string("gps")
        return [
            binary("armed", "Armed", "armed", deviceClass: nil),
            binary("running", "Recording", "running", deviceClass: "running"),
            binary("in_trip", "In trip", "in_trip", deviceClass: "moving"),
            message("sensor", "queue_depth", depth),
            message("device_tracker", "car", car),
        ]
    }

    /// One measurement of the paired sensor `id` (its id in the samples).
    public func sensorMessage(id: String, label: String, measurement: Quantity) -> MQTTMessage {
        let object = Self.safe(id) + "_" + measurement.rawValue
        var config = entity(object, measurement.name)
        config["state_topic"] = .string(topicPrefix + "/sensor/" + id)
        config["value_template"] = .string("{{ value_json.\(measurement.rawValue) }}")
        config["device_class"] = measurement.deviceClass.map { .string($0) }
        config["unit_of_measurement"] = measurement.unit.map { .string($0) }
        config["state_class"] = .string("measurement")
        config["device"] = .object([
            "identifiers": .array([.string(node + "_" + Self.safe(id))]),
            "name": .string(label),
            "via_device": .string(node),
        ])
        return message("sensor", object, config)
    }

    /// Where this gateway's sensor entities' configs are, as a subscription.
    public var sensorConfigs: String { "\(prefix)/sensor/\(node)/+/config" }

    /// The (topic-safe) sensor id of one of this gateway's sensor-measurement
    /// config topics; nil for any other topic, the gateway's own included.
    public func sensorID(inConfigTopic topic: String) -> SensorID? {
        let head = "\(prefix)/sensor/\(node)/", tail = "/config"
        guard topic.hasPrefix(head), topic.hasSuffix(tail), topic.count > head.count + tail.count else { return nil }
        let object = topic.dropFirst(head.count).dropLast(tail.count)
        for quantity in Quantity.allCases where object.hasSuffix("_" + quantity.rawValue) {
            let id = object.dropLast(quantity.rawValue.count + 1)
            return id.isEmpty ? nil : SensorID(rawValue: String(id))
        }
        return nil
    }

    private func entity(_ object: String, _ name: String) -> [String: Value?] {
        [
            "name": .string(name),
            "unique_id": .string(node + "_" + object),
            "availability_topic": .string(topicPrefix + "/availability"),
            "device": .object([
                "identifiers": .array([.string(node)]),
                "name": .string("Waymark " + deviceID.prefix(8)),
                "manufacturer": .string("Waymark"),
                "model": .string("BLE/GPS gateway"),
                "sw_version": .string(version),
            ]),
        ]
    }

    private func topic(_ component: String, _ object: String) -> String {
        "\(prefix)/\(component)/\(node)/\(object)/config"
    }

    private func message(_ component: String, _ object: String, _ config: [String: Value?]) -> MQTTMessage {
        MQTTMessage(topic(component, object), JSONBytes.encode(Value.object(config.compactMapValues { $0 })), retain: true)
    }

    static func safe(_ text: String) -> String {
        String(text.map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") ? $0 : "_" })
    }

    /// A config's JSON, keys sorted.
    indirect enum Value: Encodable, Equatable {
        case string(String)
        case array([Value])
        case object([String: Value])

        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .string(let text): try container.encode(text)
            case .array(let values): try container.encode(values)
            case .object(let members): try container.encode(members)
            }
        }
    }
}
