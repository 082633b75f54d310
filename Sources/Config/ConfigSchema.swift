import BlueZ
import Location
import Logging
import MQTT
import Radio
import Session
import Upload

package enum ConfigSchema {
    package static let keys: [ConfigKey] = [
        text("Session", "Issuer", "", "OIDC issuer URL (https, or http on loopback)", url: true) { $0.session.issuer = $1 },
        text("Session", "ClientId", "", "OAuth client id registered at the issuer") { $0.session.clientID = $1 },
        text("Session", "ClientSecretFile", "", "file holding the client secret, for a confidential client", accepts: "a file path, or empty") { $0.session.clientSecretFile = $1 },
        ConfigKey(section: "Session", name: "Scopes", defaultText: "openid", accepts: "scopes separated by spaces, openid among them", help: "space-separated scopes to request") { config, text in
            let scopes = text.split(separator: " ").map(String.init)
            guard scopes.contains("openid") else { return "must include openid" }
            config.session.scopes = scopes
            return nil
        },
        text("Session", "CAFile", "", "PEM file of extra CAs to trust; verification is never turned off", accepts: "a file path, or empty") { $0.session.caFile = $1 },
        text("Backend", "BaseURL", "", "fleet API base URL used until the account names one", url: true) { $0.backend.baseURL = $1 },
        duration("Backend", "SettingsInterval", "15min", "fetch settings and fleet commands (lock, wipe) this often (±10 % jitter), and after every token refresh and reload", minimum: .seconds(1)) {
            $0.backend.settingsInterval = $1
        },
        text("Bluetooth", "Adapter", "", "adapter name (hci0) or address; empty means the best one: powered, then USB before the UART, then by name",
             accepts: "hci0, an adapter address, or empty") { $0.bluetooth.adapter = $1 },
        ConfigKey(section: "Bluetooth", name: "ScanMode", defaultText: "auto", accepts: "auto, passive, active or mgmt",
                  help: "how adverts are heard (auto picks mgmt with CAP_NET_ADMIN, else passive where bluetoothd offers advertisement monitors, else active)") { config, text in
            guard let mode = ScanMode(rawValue: text.lowercased()) else { return "expected auto, passive, active or mgmt" }
            config.bluetooth.scanMode = mode
            return nil
        },
        duration("Bluetooth", "ScanWatchdog", "60s", "after this long without adverts, take the next recovery step (restart, power cycle, rfkill, mgmt power cycle, report)", minimum: .seconds(1)) { $0.bluetooth.scanWatchdog = $1 },
        duration("Bluetooth", "DeviceExpiry", "5min", "remove unpaired devices unseen this long from BlueZ's cache", minimum: .seconds(1)) { $0.bluetooth.deviceExpiry = $1 },
        // Below a second the samples would flood the queue: 0 turns them off instead.
        parsed("Bluetooth", "HealthInterval", "5min", "record a radio_health sample this often, all the time the daemon runs; 0 for never",
               expected: "0 or a duration of at least 1s, such as 5min",
               { ConfigValue.duration($0).flatMap { $0 == .zero || $0 >= .seconds(1) ? $0 : nil } }) { $0.bluetooth.healthInterval = $1 },
        ConfigKey(section: "Location", name: "Source", defaultText: "gpsd://127.0.0.1:2947",
                  accepts: "gpsd://HOST:PORT, gpsd:///SOCKET or nmea:///DEVICE?baud=RATE (4800 to 460800)",
                  help: "where fixes come from: gpsd over TCP or a unix socket, or a receiver read directly as NMEA") { config, text in
            guard let source = LocationSource(text) else { return "expected gpsd://HOST:PORT, gpsd:///PATH or nmea:///DEVICE?baud=RATE" }
            config.location.source = source
            return nil
        },
        duration("Location", "NoDataTimeout", "10s", "treat a silent gpsd connection as dead after this long", minimum: .seconds(1)) { $0.location.noDataTimeout = $1 },
        duration("Recording", "GapThreshold", "60s", "report interruptions longer than this as telemetry gaps", minimum: .seconds(1)) { $0.recording.gapThreshold = $1 },
        duration("Recording", "BeaconLostTimeout", "2min", "end a trip when the vehicle beacon is unseen this long", minimum: .seconds(1)) { $0.recording.beaconLostTimeout = $1 },
        integer("Recording", "TripStartSightings", "3", 1...100, "sightings of the vehicle beacon that start a trip") { $0.recording.tripStartSightings = $1 },
        duration("Recording", "TripStartWindow", "30s", "window in which those sightings must fall", minimum: .seconds(1)) { $0.recording.tripStartWindow = $1 },
        duration("Recording", "ReopenWindow", "5min", "a beacon back within this time continues the last trip") { $0.recording.reopenWindow = $1 },
        duration("Recording", "MaxTripDuration", "12h", "longest trip before it is split", minimum: .seconds(60)) { $0.recording.maxTripDuration = $1 },
        duration("Recording", "FixInterval", "1s", "at most one fix sample per interval") { $0.recording.fixInterval = $1 },
        duration("Recording", "BeaconInterval", "10s", "at most one vehicle-beacon sample per interval") { $0.recording.beaconInterval = $1 },
        duration("Recording", "SensorInterval", "60s", "sensor readings are recorded on change or at this interval") { $0.recording.sensorInterval = $1 },
        text("Recording", "Capture", "", "write a capture of everything heard (adverts, location lines, state changes) to files in this directory, for `waymark replay`; empty for none", accepts: "a directory, or empty") {
            $0.recording.capture = $1
        },
        bytes("Recording", "CaptureMaxBytes", "64M", "start a new capture file at this compressed size; the newest 8 are kept") { $0.recording.captureMaxBytes = $1 },
        integer("Upload", "BatchSize", "500", 1...100_000, "samples per upload request") { $0.upload.batchSize = $1 },
        bytes("Upload", "BatchBytes", "512K", "uncompressed bytes per upload request") { $0.upload.batchBytes = $1 },
        duration("Upload", "BatchAge", "30s", "send a partial batch once its oldest sample is this old") { $0.upload.batchAge = $1 },
        bytes("Upload", "MaxQueueBytes", "256M", "outbox size cap; beyond it the oldest samples are dropped and recorded") { $0.upload.maxQueueBytes = $1 },
        duration("Upload", "RetryCap", "15min", "longest wait between upload retries and MQTT reconnects", minimum: .seconds(1)) { $0.upload.retryCap = $1 },
        ConfigKey(section: "Upload", name: "Sinks", defaultText: "http", accepts: "http, mqtt, or http, mqtt",
                  help: "where samples go: a sample leaves the queue once every one has it") { config, text in
            let names = text.split(separator: ",").map { $0.filter { !$0.isWhitespace }.lowercased() }
            let sinks = names.compactMap(UploadSink.init(rawValue:))
            guard !sinks.isEmpty, sinks.count == names.count, Set(sinks).count == sinks.count else { return "expected http, mqtt, or http, mqtt" }
            config.upload.sinks = sinks
            return nil
        },
        ConfigKey(section: "MQTT", name: "Broker", defaultText: "",
                  accepts: "mqtts://HOST:PORT, or several separated by commas; mqtt://HOST:PORT to a loopback address; or empty",
                  help: "the MQTT broker, or a cluster's nodes tried in turn (the next on a loss); empty for no MQTT") { config, text in
            guard !text.isEmpty else {
                config.mqtt.brokers = []
                return nil
            }
            switch MQTTBroker.parseList(text) {
            case .success(let brokers): config.mqtt.brokers = brokers
            case .failure(let refusal): return refusal.message
            }
            return nil
        },
        ConfigKey(section: "MQTT", name: "Protocol", defaultText: "auto", accepts: "5, 3.1.1 or auto",
                  help: "the MQTT version: auto speaks 5 and falls back to 3.1.1 when the broker refuses 5 (nats-server and RabbitMQ speak 3.1.1 only)") { config, text in
            guard let version = MQTTProtocol(rawValue: text.lowercased()) else { return "expected 5, 3.1.1 or auto" }
            config.mqtt.protocolVersion = version
            return nil
        },
        text("MQTT", "ClientId", "waymark-{device_id}", "client id; the broker keeps its session across reconnects", accepts: "text; {device_id} is replaced") { $0.mqtt.clientID = $1 ?? "" },
        text("MQTT", "Username", "", "user name at the broker") { $0.mqtt.username = $1 },
        text("MQTT", "PasswordFile", "", "file holding the broker password", accepts: "a file path, or empty") { $0.mqtt.passwordFile = $1 },
        text("MQTT", "CAFile", "", "PEM file of the CAs to trust for the broker; empty for the system's", accepts: "a file path, or empty") { $0.mqtt.caFile = $1 },
        text("MQTT", "CertFile", "", "client certificate (PEM), with KeyFile", accepts: "a file path, or empty") { $0.mqtt.certFile = $1 },
        text("MQTT", "KeyFile", "", "the client certificate's private key (PEM)", accepts: "a file path, or empty") { $0.mqtt.keyFile = $1 },
        text("MQTT", "TopicPrefix", "waymark/{device_id}", "topics go under this prefix", accepts: "a topic; {device_id} is replaced") { $0.mqtt.topicPrefix = $1 ?? "" },
        parsed("MQTT", "Discovery", "true", "publish Home Assistant discovery configs", expected: "true or false",
               { ["true": true, "false": false][$0.lowercased()] }) { $0.mqtt.discovery = $1 },
        text("MQTT", "DiscoveryPrefix", "homeassistant", "Home Assistant's discovery prefix") { $0.mqtt.discoveryPrefix = $1 ?? "" },
        parsed("MQTT", "Commands", "false", "take cmd/start, cmd/stop and cmd/flush from the broker (limit who may publish them with its ACL)",
               expected: "true or false", { ["true": true, "false": false][$0.lowercased()] }) { $0.mqtt.commands = $1 },
        duration("Daemon", "StopTimeout", "8s", "on SIGTERM, how long each service may take to stop before the daemon logs which one held it up and stops without it (below the unit's TimeoutStopSec of 10s)", minimum: .milliseconds(100)) {
            $0.daemon.stopTimeout = $1
        },
        duration("Health", "AdvertSilence", "30min", "waymark health: armed and scanning, this long without hearing any advert is unhealthy", minimum: .seconds(1)) {
            $0.health.advertSilence = $1
        },
        duration("Health", "QueueAge", "24h", "waymark health: a queued sample older than this means uploads are stuck", minimum: .seconds(1)) {
            $0.health.queueAge = $1
        },
        ConfigKey(section: "Logging", name: "Level", defaultText: "info", accepts: "error, warning, notice, info or debug", help: "the least priority logged") { config, text in
            let levels: [String: Log.Priority] = ["error": .error, "warning": .warning, "notice": .notice, "info": .info, "debug": .debug]
            guard let level = levels[text.lowercased()] else { return "expected error, warning, notice, info or debug" }
            config.logLevel = level
            return nil
        },
    ]

    package static func key(section: String, name: String) -> ConfigKey? {
        byName[section + "." + name]
    }

    private static let byName = Dictionary(keys.map { ($0.section + "." + $0.name, $0) }) { first, _ in first }

    package static let sections: [String] = keys.reduce(into: []) { if !$0.contains($1.section) { $0.append($1.section) } }

    // MARK: Key builders by value type

    private static func text(
        _ section: String, _ name: String, _ defaultText: String, _ help: String, url: Bool = false, accepts: String? = nil,
        _ set: @escaping @Sendable (inout Configuration, String?) -> Void
    ) -> ConfigKey {
        ConfigKey(section: section, name: name, defaultText: defaultText, accepts: accepts ?? (url ? "an https URL (http only to a loopback address)" : "text"),
                  help: help) { config, text in
            if url, !text.isEmpty, let problem = EndpointURL.validate(text) { return problem }
            set(&config, text.isEmpty ? nil : text)
            return nil
        }
    }

    /// `minimum`: for periods that drive a loop (a watchdog, a sweep, a
    /// poll), where zero would spin; the same floor as remote settings have.
    private static func duration(
        _ section: String, _ name: String, _ defaultText: String, _ help: String, minimum: Duration = .zero,
        _ set: @escaping @Sendable (inout Configuration, Duration) -> Void
    ) -> ConfigKey {
        let expected = minimum == .zero ? "a duration such as 30s, 5min or 2h" : "a duration of at least \(ConfigValue.text(minimum)), such as 30s, 5min or 2h"
        return parsed(section, name, defaultText, help, expected: expected, { ConfigValue.duration($0).flatMap { $0 >= minimum ? $0 : nil } }, set)
    }

    private static func integer(
        _ section: String, _ name: String, _ defaultText: String, _ range: ClosedRange<Int>, _ help: String,
        _ set: @escaping @Sendable (inout Configuration, Int) -> Void
    ) -> ConfigKey {
        parsed(section, name, defaultText, help, expected: "a whole number from \(range.lowerBound) to \(range.upperBound)",
               { ConfigValue.integer($0, in: range) }, set)
    }

    private static func bytes(
        _ section: String, _ name: String, _ defaultText: String, _ help: String,
        _ set: @escaping @Sendable (inout Configuration, Int64) -> Void
    ) -> ConfigKey {
        parsed(section, name, defaultText, help, expected: "a size such as 512K, 64M or 1G", { ConfigValue.bytes($0).flatMap { $0 > 0 ? $0 : nil } }, set)
    }

    /// A key whose text `parse` turns into a value, or refuses with "expected …".
    private static func parsed<Value>(
        _ section: String, _ name: String, _ defaultText: String, _ help: String, expected: String,
        _ parse: @escaping @Sendable (String) -> Value?, _ set: @escaping @Sendable (inout Configuration, Value) -> Void
    ) -> ConfigKey {
        ConfigKey(section: section, name: name, defaultText: defaultText, accepts: expected, help: help) { config, text in
            guard let value = parse(text) else { return "expected " + expected }
            set(&config, value)
            return nil
        }
    }
}
