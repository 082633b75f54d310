import Basics
import BlueZ
import Config
import Location
import PeerHarness
import Radio
import Testing

struct ConfigurationTests {
    @Test func anEmptyFileGivesTheDocumentedDefaults() throws {
        let configuration = try Configuration.parse("", file: "w.conf")
        #expect(configuration == Configuration())
        #expect(configuration.location.source == .gpsd(host: "127.0.0.1", port: 2947))
        #expect(configuration.session.scopes == ["openid"])
    }

    @Test func everyDocumentedDefaultParsesToTheBuiltInDefault() throws {
        // Uncomment every `#Key = default` line of the generated file.
        let text = Configuration.documentedDefaults.split(separator: "\n").map { line in
            line.hasPrefix("#") && line.contains(" =") && !line.hasPrefix("# ") ? String(line.dropFirst()) : String(line)
        }.joined(separator: "\n")
        #expect(try Configuration.parse(text, file: "defaults.conf") == Configuration())
    }

    @Test func aHealthIntervalOfZeroTurnsHealthSamplesOffAndOneSecondIsTheShortest() throws {
        #expect(try Configuration.parse("[Bluetooth]\nHealthInterval = 0\n", file: "a.conf").bluetooth.healthInterval == .zero)
        #expect(try Configuration.parse("[Bluetooth]\nHealthInterval = 1s\n", file: "a.conf").bluetooth.healthInterval == .seconds(1))
    }

    @Test func valuesOfEveryKindAreApplied() throws {
        let configuration = try Configuration.parse("""
            # comment
            [Session]
            Issuer = https://id.example.com/realm
            ClientId = waymark
            Scopes = openid offline_access

            [Backend]
            BaseURL = http://127.0.0.1:8080

            [Bluetooth]
            Adapter = hci1
            ScanMode = MGMT
            ScanWatchdog = 90s

            [Location]
            Source = nmea:///dev/ttyACM0?baud=115200

            [Recording]
            GapThreshold = 2min
            TripStartSightings = 5
            ; another comment style

            [Upload]
            MaxQueueBytes = 64M
            BatchAge = 500ms
            """, file: "w.conf")
        #expect(configuration.session.issuer == "https://id.example.com/realm")
        #expect(configuration.session.scopes == ["openid", "offline_access"])
        #expect(configuration.backend.baseURL == "http://127.0.0.1:8080")
        #expect(configuration.bluetooth.adapter == "hci1")
        #expect(configuration.bluetooth.scanMode == .mgmt)
        #expect(configuration.bluetooth.scanWatchdog == .seconds(90))
        #expect(configuration.location.source == .nmea(device: "/dev/ttyACM0", baud: 115_200))
        #expect(configuration.recording.gapThreshold == .seconds(120))
        #expect(configuration.recording.tripStartSightings == 5)
        #expect(configuration.upload.maxQueueBytes == 64 << 20)
        #expect(configuration.upload.batchAge == .milliseconds(500))
    }

    struct BadCase: Sendable, CustomStringConvertible {
        var text: String
        var line: Int
        var key: String
        var description: String { "\(key) at line \(line)" }
    }

    @Test(arguments: [
        BadCase(text: "[Session]\nIssuer = https://x\nColour = blue\n", line: 3, key: "Session.Colour"),
        BadCase(text: "[Nonsense]\nKey = 1\n", line: 2, key: "Nonsense.Key"),
        BadCase(text: "[Recording]\n\nGapThreshold = soon\n", line: 3, key: "Recording.GapThreshold"),
        BadCase(text: "[Recording]\nTripStartSightings = 0\n", line: 2, key: "Recording.TripStartSightings"),
        BadCase(text: "[Upload]\nMaxQueueBytes = 12Q\n", line: 2, key: "Upload.MaxQueueBytes"),
        BadCase(text: "[Location]\nSource = serial:/dev/ttyS0\n", line: 2, key: "Location.Source"),
        BadCase(text: "[Location]\nSource = nmea:///dev/ttyS0?baud=12345\n", line: 2, key: "Location.Source"),
        BadCase(text: "[Session]\nIssuer = http://id.example.com\n", line: 2, key: "Session.Issuer"),
        BadCase(text: "[Backend]\nBaseURL = ftp://x\n", line: 2, key: "Backend.BaseURL"),
        BadCase(text: "[Session]\nScopes = profile\n", line: 2, key: "Session.Scopes"),
        BadCase(text: "[Logging]\nLevel = loud\n", line: 2, key: "Logging.Level"),
        BadCase(text: "[Bluetooth]\nScanMode = sideways\n", line: 2, key: "Bluetooth.ScanMode"),
        BadCase(text: "[Bluetooth]\nHealthInterval = often\n", line: 2, key: "Bluetooth.HealthInterval"),
        BadCase(text: "[Bluetooth]\nHealthInterval = 10ms\n", line: 2, key: "Bluetooth.HealthInterval"),
        BadCase(text: "[Bluetooth]\nScanWatchdog = 0\n", line: 2, key: "Bluetooth.ScanWatchdog"),
        BadCase(text: "[Bluetooth]\nDeviceExpiry = 0s\n", line: 2, key: "Bluetooth.DeviceExpiry"),
        BadCase(text: "[Backend]\nSettingsInterval = 500ms\n", line: 2, key: "Backend.SettingsInterval"),
        BadCase(text: "[Location]\nNoDataTimeout = 0\n", line: 2, key: "Location.NoDataTimeout"),
        BadCase(text: "[MQTT]\nBroker = mqtt://broker.example.com\n", line: 2, key: "MQTT.Broker"),
        BadCase(text: "[MQTT]\nBroker = http://127.0.0.1:1883\n", line: 2, key: "MQTT.Broker"),
        BadCase(text: "[MQTT]\nBroker = mqtts://\n", line: 2, key: "MQTT.Broker"),
        BadCase(text: "[MQTT]\nBroker = mqtts://a.example, mqtt://127.0.0.1\n", line: 2, key: "MQTT.Broker"),
        BadCase(text: "[MQTT]\nBroker = mqtts://a.example, mqtts://a.example:8883\n", line: 2, key: "MQTT.Broker"),
        BadCase(text: "[MQTT]\nBroker = mqtts://a.example, , mqtts://b.example\n", line: 2, key: "MQTT.Broker"),
        BadCase(text: "[MQTT]\nDiscovery = maybe\n", line: 2, key: "MQTT.Discovery"),
        BadCase(text: "[Upload]\nSinks = http, carrier-pigeon\n", line: 2, key: "Upload.Sinks"),
        BadCase(text: "[Upload]\nSinks = mqtt, mqtt\n", line: 2, key: "Upload.Sinks"),
        BadCase(text: "[Upload]\n\nSinks = http, mqtt\n", line: 3, key: "Upload.Sinks"),
        BadCase(text: "[MQTT]\nBroker = mqtts://b.example\nKeyFile = /k.pem\n", line: 3, key: "MQTT.KeyFile"),
        BadCase(text: "[Bluetooth]\nAdapter = hci0\nAdapter = hci1\n", line: 3, key: "Bluetooth.Adapter"),
        BadCase(text: "Adapter = hci0\n", line: 1, key: "Adapter"),
        BadCase(text: "[Bluetooth\nAdapter = hci0\n", line: 1, key: ""),
        BadCase(text: "[Bluetooth]\njust words\n", line: 2, key: ""),
    ])
    func eachKindOfErrorNamesTheFileLineAndKey(_ bad: BadCase) {
        do {
            _ = try Configuration.parse(bad.text, file: "/etc/waymark/waymark.conf")
            Issue.record("accepted \(bad.text.debugDescription)")
        } catch {
            #expect(error.file == "/etc/waymark/waymark.conf")
            #expect(error.line == bad.line)
            #expect(error.key == bad.key)
            #expect(error.description.hasPrefix("/etc/waymark/waymark.conf:\(bad.line): \(bad.key.isEmpty ? "" : bad.key + ": ")"))
            #expect(!error.description.contains("\n"))
        }
    }

    @Test func aMissingDefaultFileMeansDefaultsButAMissingNamedFileIsAnError() throws {
        #expect(try Configuration.load(path: "/nonexistent/waymark.conf", explicit: false) == Configuration())
        #expect(throws: ConfigError.self) { _ = try Configuration.load(path: "/nonexistent/waymark.conf", explicit: true) }
    }

    @Test(arguments: [("90", 90_000), ("90s", 90_000), ("500ms", 500), ("5min", 300_000), ("2h", 7_200_000), ("1d", 86_400_000), ("1.5s", 1500)])
    func durationsAcceptTheUsualUnits(_ text: String, _ milliseconds: Int64) {
        #expect(ConfigValue.duration(text) == .milliseconds(milliseconds))
    }

    @Test func configParsingNeverCrashesOnArbitraryText() {
        var rng = SplitMix64(seed: 3)
        let alphabet = Array("[]=#;\n \tSessionIssuerBackendLocationSourcegpsd://:0123456789msh\u{0}é")
        for _ in 0..<20_000 {
            let text = String((0..<Int.random(in: 0...80, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! })
            _ = try? Configuration.parse(text, file: "fuzz.conf")
        }
    }
}
