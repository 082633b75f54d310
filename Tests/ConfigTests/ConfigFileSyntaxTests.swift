import Config
import Foundation
import PeerHarness
import Testing

/// The file's syntax and every value's form, as the manual states them.
struct ConfigFileSyntaxTests {
    static func error(_ text: String) -> String? {
        do {
            _ = try Configuration.parse(text, file: "w.conf")
            return nil
        } catch {
            return error.description
        }
    }

    /// Every ```ini block of the README and the manual loads as it is
    /// written: the pages and the parser cannot disagree.
    @Test func everyConfigExampleInTheReadmeAndTheManualLoads() throws {
        var loaded = 0
        for (path, text) in try Manual.pages() {
            for block in Manual.blocks("ini", in: text) {
                #expect(Self.error(block) == nil, "\(path): \(block)")
                loaded += 1
            }
        }
        #expect(loaded >= 3, "config examples: \(loaded)")
    }

    @Test func aCommentAfterAValueIsNotPartOfIt() throws {
        let configuration = try Configuration.parse("""
            [MQTT]
            Broker = mqtts://broker.example:8883   ; plain mqtt:// only to a loopback address
            CAFile = /etc/waymark/broker-ca.pem    # empty: the system's CAs
            Username = "gateway ; 17"  ; quoted, the semicolon is kept
            TopicPrefix = fleet#1/cars
            """, file: "w.conf")
        #expect(configuration.mqtt.brokers.first?.host == "broker.example")
        #expect(configuration.mqtt.caFile == "/etc/waymark/broker-ca.pem")
        #expect(configuration.mqtt.username == "gateway ; 17")
        #expect(configuration.mqtt.topicPrefix == "fleet#1/cars", "a # inside a word is not a comment")
    }

    @Test func aClustersNodesAreListedInTheOrderTheyAreTriedAndARefusedOneIsNamed() throws {
        let configuration = try Configuration.parse("[MQTT]\nBroker = mqtts://a.example, mqtts://b.example:8884 ,mqtts://c.example\n", file: "w.conf")
        #expect(configuration.mqtt.brokers.map(\.address) == ["a.example:8883", "b.example:8884", "c.example:8883"])
        #expect(Self.error("[MQTT]\nBroker = mqtts://a.example, mqtts://a.example:8883\n")?.contains("a.example:8883 is listed twice") == true)
        #expect(Self.error("[MQTT]\nBroker = mqtts://a.example, mqtt://b.example\n")?.contains("mqtt://b.example: ") == true)
        #expect(Self.error("[MQTT]\nBroker = mqtts://a.example, mqtt://127.0.0.1\n")?.contains("every broker in the list takes mqtts://, or every one mqtt://") == true)
    }

    @Test func aListOfThousandsOfNodesParsesAndItsRepeatAtTheEndIsNamed() throws {
        let nodes = (1...4_096).map { "mqtt://127.0.0.1:\($0)" }
        let configuration = try Configuration.parse("[MQTT]\nBroker = \(nodes.joined(separator: ","))\n", file: "w.conf")
        #expect(configuration.mqtt.brokers.count == 4_096 && configuration.mqtt.brokers.last?.address == "127.0.0.1:4096")
        #expect(Self.error("[MQTT]\nBroker = \((nodes + ["mqtt://127.0.0.1:1"]).joined(separator: ","))\n")?.contains("127.0.0.1:1 is listed twice") == true)
    }

    @Test func aQuotedValueWithoutItsClosingQuoteNamesTheLineAndKey() {
        #expect(Self.error("[MQTT]\nUsername = \"gateway\n") == #"w.conf:2: MQTT.Username: a quoted value has no closing ""#)
    }

    @Test func aByteOrderMarkAtTheStartIsSkipped() throws {
        let configuration = try Configuration.parse("\u{FEFF}[Recording]\nTripStartSightings = 4\n", file: "w.conf")
        #expect(configuration.recording.tripStartSightings == 4)
    }

    @Test(arguments: [
        ("[Daemon]\nStopTimeout = 1ms", "w.conf:2: Daemon.StopTimeout: expected a duration of at least 100ms, such as 30s, 5min or 2h"),
        ("[Recording]\nBeaconLostTimeout = 0", "w.conf:2: Recording.BeaconLostTimeout: expected a duration of at least 1s, such as 30s, 5min or 2h"),
        ("[Recording]\nMaxTripDuration = 0", "w.conf:2: Recording.MaxTripDuration: expected a duration of at least 1min, such as 30s, 5min or 2h"),
        ("[Recording]\nTripStartWindow = 0s", "w.conf:2: Recording.TripStartWindow: expected a duration of at least 1s, such as 30s, 5min or 2h"),
        ("[Upload]\nRetryCap = 0", "w.conf:2: Upload.RetryCap: expected a duration of at least 1s, such as 30s, 5min or 2h"),
    ])
    func everyDurationHasItsTrueMinimumAndTheMessageStatesIt(text: String, message: String) {
        #expect(Self.error(text) == message + ", got \(text.split(separator: " ").last.map { String($0).debugDescription } ?? "")")
    }

    @Test(arguments: ["0x10", "1e3", "30 s", "+5s", "-1s", ".5s", "5.s", "1.2.3s", "5m", "inf", "nan", "٣s"])
    func onlyDocumentedDurationFormsAreAccepted(text: String) {
        #expect(Self.error("[Recording]\nGapThreshold = \(text)")?.contains("Recording.GapThreshold: expected a duration") == true, "\(text)")
    }

    @Test(arguments: ["0x10", "1e3", "+5", "5 ", "٣"])
    func onlyDecimalDigitsAreAcceptedForNumbersAndSizes(text: String) {
        #expect(Self.error("[Recording]\nTripStartSightings = \(text)x")?.contains("expected a whole number") == true)
        #expect(Self.error("[Upload]\nBatchBytes = \(text)K")?.contains("expected a size") == true, "\(text)")
    }

    @Test func documentedFormsStillParse() throws {
        let configuration = try Configuration.parse("[Recording]\nGapThreshold = 1.5min\nBeaconLostTimeout = 90\nFixInterval = 500ms\n[Upload]\nBatchBytes = 512k\n", file: "w.conf")
        #expect(configuration.recording.gapThreshold == .seconds(90))
        #expect(configuration.recording.beaconLostTimeout == .seconds(90))
        #expect(configuration.recording.fixInterval == .milliseconds(500))
        #expect(configuration.upload.batchBytes == 512 * 1024)
    }

    @Test func aBadPortIsCalledABadPortNotABadHost() {
        let port = Self.error("[MQTT]\nBroker = mqtts://h:99999")
        #expect(port?.contains(#"has no valid port (a whole number from 1 to 65535), got "99999""#) == true, "\(port ?? "")")
        #expect(Self.error("[Backend]\nBaseURL = https://[::1]:0/api")?.contains("has no valid port") == true)
        let host = Self.error("[MQTT]\nBroker = mqtts://:8883")
        #expect(host?.contains("has no valid host") == true, "\(host ?? "")")
    }

    @Test func aControlCharacterInAnErrorIsShownNeverObeyed() {
        let message = Self.error("[Recording]\nBeaconLostTimeout = never")
        #expect(message?.contains("never") == true)
        // The ESC of an OSC sequence is refused where it is, and its line is named.
        let control = Self.error("[Recording]\nBeaconLostTimeout = \u{1B}]0;x\u{07}")
        #expect(control?.hasPrefix("w.conf:2: Recording.BeaconLostTimeout: control character U+1B") == true, "\(control ?? "")")
    }
}
