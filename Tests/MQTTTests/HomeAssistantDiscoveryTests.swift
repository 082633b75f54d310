import Foundation
@testable import MQTT
import Telemetry
import Testing
import Vocabulary

/// Discovery payloads against the keys and values Home Assistant's MQTT
/// pages require (home-assistant.io/integrations/sensor.mqtt,
/// binary_sensor.mqtt, device_tracker.mqtt, and the discovery section of
/// integrations/mqtt): a config topic of `<prefix>/<component>/<node_id>/<object_id>/config`
/// with only `[a-zA-Z0-9_-]` in the ids, a `unique_id` with a `device` that
/// has `identifiers`, and device classes and units from its lists.
struct HomeAssistantDiscoveryTests {
    static let discovery = HomeAssistantDiscovery(prefix: "homeassistant", topicPrefix: "waymark/0b5e-77", deviceID: "0b5e-77", version: "1.2.3")

    static func config(_ message: MQTTMessage) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(message.payload)) as? [String: Any])
    }

    static func checkTopic(_ topic: String, component: String) {
        let parts = topic.split(separator: "/", omittingEmptySubsequences: false)
        #expect(parts.count == 5 && parts[0] == "homeassistant" && parts[1] == Substring(component) && parts[4] == "config", "\(topic)")
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")
        #expect(parts.count == 5 && parts[2].allSatisfy(allowed.contains) && parts[3].allSatisfy(allowed.contains), "\(topic)")
    }

    /// Every entity: a name, a unique id, the availability topic, and a device.
    static func checkEntity(_ config: [String: Any]) {
        #expect(config["name"] is String && config["unique_id"] is String)
        #expect(config["availability_topic"] as? String == "waymark/0b5e-77/availability")
        let device = config["device"] as? [String: Any]
        #expect((device?["identifiers"] as? [String])?.isEmpty == false && device?["name"] is String, "\(config)")
    }

    @Test func aSensorsMeasurementsEachHaveAClassAUnitAndAStateClass() throws {
        // Home Assistant's device classes and units; it has no class for PM4 or the indexes, and the indexes no unit.
        let units: [Quantity: (String?, String?)] = [
            .temperature: ("temperature", "°C"), .humidity: ("humidity", "%"), .pressure: ("atmospheric_pressure", "hPa"),
            .battery: ("battery", "%"), .voltage: ("voltage", "V"), .co2: ("carbon_dioxide", "ppm"), .pm1: ("pm1", "µg/m³"),
            .pm2_5: ("pm25", "µg/m³"), .pm4: (nil, "µg/m³"), .pm10: ("pm10", "µg/m³"), .vocIndex: (nil, nil), .noxIndex: (nil, nil),
            .illuminance: ("illuminance", "lx"),
        ]
        #expect(Set(units.keys) == Set(Quantity.allCases))
        var uniqueIDs: Set<String> = []
        for measurement in Quantity.allCases {
            let message = Self.discovery.sensorMessage(id: "pairing-3", label: "Fridge", measurement: measurement)
            #expect(message.retain)
            Self.checkTopic(message.topic, component: "sensor")
            let config = try Self.config(message)
            Self.checkEntity(config)
            #expect(config["device_class"] as? String == units[measurement]?.0 && config["unit_of_measurement"] as? String == units[measurement]?.1, "\(measurement)")
            #expect(config["state_class"] as? String == "measurement")
            #expect(config["state_topic"] as? String == "waymark/0b5e-77/sensor/pairing-3")
            #expect(config["value_template"] as? String == "{{ value_json.\(measurement.rawValue) }}")
            let device = config["device"] as? [String: Any]
            #expect(device?["name"] as? String == "Fridge" && device?["via_device"] as? String == "waymark_0b5e-77")
            uniqueIDs.insert(config["unique_id"] as? String ?? "")
        }
        #expect(uniqueIDs.count == Quantity.allCases.count)
    }

    @Test func theGatewayHasItsBinarySensorsItsQueueAndTheCarAsATracker() throws {
        let messages = Self.discovery.gatewayMessages()
        let byObject = Dictionary(uniqueKeysWithValues: messages.map { (String($0.topic.split(separator: "/")[3]), $0) })
        #expect(Set(byObject.keys) == ["armed", "running", "in_trip", "queue_depth", "car"])
        for object in ["armed", "running", "in_trip"] {
            let message = try #require(byObject[object])
            Self.checkTopic(message.topic, component: "binary_sensor")
            let config = try Self.config(message)
            Self.checkEntity(config)
            #expect(config["state_topic"] as? String == "waymark/0b5e-77/state")
            #expect((config["value_template"] as? String)?.contains("'ON' if value_json.") == true)
        }
        let binaryClasses = ["running": "running", "in_trip": "moving"]
        for (object, deviceClass) in binaryClasses { #expect(try Self.config(byObject[object]!)["device_class"] as? String == deviceClass) }
        let car = try Self.config(try #require(byObject["car"]))
        Self.checkTopic(byObject["car"]!.topic, component: "device_tracker")
        Self.checkEntity(car)
        #expect(car["json_attributes_topic"] as? String == "waymark/0b5e-77/location" && car["source_type"] as? String == "gps")
        let depth = try Self.config(try #require(byObject["queue_depth"]))
        #expect(depth["state_class"] as? String == "measurement" && depth["value_template"] as? String == "{{ value_json.queue_depth }}")
        let gateway = car["device"] as? [String: Any]
        #expect((gateway?["identifiers"] as? [String]) == ["waymark_0b5e-77"] && gateway?["sw_version"] as? String == "1.2.3")
    }

    @Test func aSensorsConfigTopicNamesItsSensorAndNoOtherTopicDoes() {
        for quantity in Quantity.allCases {
            let topic = Self.discovery.sensorMessage(id: "pairing-3", label: "x", measurement: quantity).topic
            #expect(Self.discovery.sensorID(inConfigTopic: topic) == "pairing-3", "\(topic)")
        }
        let others = Self.discovery.gatewayMessages().map(\.topic) + [
            "homeassistant/sensor/waymark_other/pairing-3_temperature/config", "homeassistant/sensor/waymark_0b5e-77/_temperature/config",
            "homeassistant/sensor/waymark_0b5e-77/pairing-3_colour/config", "homeassistant/sensor/waymark_0b5e-77/pairing-3_temperature",
        ]
        for topic in others { #expect(Self.discovery.sensorID(inConfigTopic: topic) == nil, "\(topic)") }
    }

    @Test func aTopicUnsafeIDIsMadeSafe() {
        #expect(HomeAssistantDiscovery.safe("pairing-3") == "pairing-3")
        #expect(HomeAssistantDiscovery.safe("a/b+c#d é") == "a_b_c_d__")
    }
}
