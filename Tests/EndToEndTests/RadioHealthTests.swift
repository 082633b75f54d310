import Foundation
import PeerHarness
import Testing

/// Radio health: a `radio_health` sample every `[Bluetooth] HealthInterval`,
/// uploaded like the others, and `waymark radio` showing the same fields.
@Suite(.serialized)
struct RadioHealthTests {
    @Test func everyIntervalASampleSaysWhatWasHeardAndWhichPairedDevicesWereSeen() async throws {
        let car = try await RecordingRig(config: "[Bluetooth]\nHealthInterval = 2s\n\n[Upload]\nBatchAge = 1s\n", pairVehicle: true)
        defer { car.stop() }
        let rig = car.session
        // A sensor that never advertises: paired, not seen.
        #expect(try rig.run(["pair", "--address", "54:48:E6:8F:80:A5", "--role", "sensor"]).status == 0)
        let daemon = try await car.startDaemon()
        defer { daemon.stop() }
        try await RecordingRig.waitFor("recording: running", in: daemon)
        let beacon = try await car.keepBeaconInSight()
        defer { beacon.cancel() }

        func paired(_ sample: [String: Any], _ role: String) -> [String: Any]? {
            (sample["paired"] as? [[String: Any]])?.first { $0["role"] as? String == role }
        }
        let deadline = ContinuousClock.now + .seconds(30)
        var found: [String: Any]?
        while found == nil, ContinuousClock.now < deadline {
            found = try rig.backend.samples(kind: "radio_health").first { paired($0, "vehicle")?["seen"] as? Bool == true }
            if found == nil { try await Task.sleep(for: .milliseconds(100)) }
        }
        let kinds = try rig.backend.summary().kinds
        let sample = try #require(found, "no radio_health sample with the beacon seen; uploaded: \(kinds); \(daemon.output.suffix(2000))")
        #expect((1...4).contains(sample["interval_s"] as? Int ?? 0), "\(sample)")
        let scanning = try #require((sample["scanning"] as? [[String: Any]])?.first, "\(sample)")
        #expect(scanning["adapter"] as? String == "hci0" && scanning["mode"] as? String == "active", "\(sample)")
        let adverts = scanning["adverts"] as? Int ?? 0
        let perMinute = scanning["adverts_per_minute"] as? Double ?? 0
        let seconds = Double(sample["interval_s"] as? Int ?? 0)
        #expect(adverts > 0 && abs(perMinute - Double(adverts) * 60 / seconds) <= Double(adverts) * 60 / seconds * 0.5 + 0.1, "\(sample)")
        #expect(paired(sample, "vehicle")?["identity"] as? String == "ibeacon:e2c56db5-dffb-48d2-b060-d0f5a71096e0:100:0")
        #expect((-55 ... -50).contains(paired(sample, "vehicle")?["strongest_rssi"] as? Int ?? 0), "the beacon sends -50, then -55: \(sample)")
        let sensor = paired(sample, "sensor")
        #expect(sensor?["seen"] as? Bool == false && sensor?["strongest_rssi"] == nil, "\(sample)")
        #expect((sample["discovery_restarts"] as? Int) == 0 && (sample["ladder_steps"] as? [String]) == [], "\(sample)")
        // Two devices on a private bus: the reader is never behind, nothing is shed.
        #expect((sample["strangers_shed"] as? Int) == 0, "\(sample)")

        // The same fields from the running daemon, for the interval so far.
        let radio = try rig.run(["radio", "--json"], environment: car.bluez.bus.environment)
        let live = try #require(try JSONSerialization.jsonObject(with: Data(radio.output.utf8)) as? [String: Any], "\(radio.output)")
        let fields = ["interval_s", "scanning", "discovery_restarts", "ladder_steps", "strangers_shed", "paired"]
        #expect(fields.allSatisfy { live[$0] != nil && sample[$0] != nil } && Set(live.keys) == Set(fields), "\(live) vs \(sample)")
        let text = try rig.run(["radio"], environment: car.bluez.bus.environment)
        #expect(text.output.contains("hci0 active:") && text.output.contains("vehicle ibeacon:"), "\(text.output)")
        daemon.kill(SIGTERM)
        #expect(try daemon.wait(timeout: 5) == 0)
    }
}
