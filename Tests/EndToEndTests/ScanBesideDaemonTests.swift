import Foundation
import PeerHarness
import Testing

/// `waymark scan` while the daemon scans: it shows the daemon's sightings,
/// through the control interface, and starts no discovery of its own, which
/// would change what the daemon hears.
@Suite(.serialized)
struct ScanBesideDaemonTests {
    static let stranger = "5A:00:00:11:22:33"

    /// The daemon cycles discovery every 15 s here (a quarter of its
    /// BeaconInterval), so a scan of 3 s that cycled its own every second
    /// would show in the mock's calls.
    @Test func scanBesideTheDaemonShowsWhatItHearsAndStartsNoDiscoveryOfItsOwn() async throws {
        let car = try await RecordingRig(config: "[Recording]\nBeaconInterval = 60s\n", pairVehicle: true)
        defer { car.stop() }
        let daemon = try await car.startRecording()
        defer { daemon.stop() }
        let beacon = try await car.keepBeaconInSight()
        defer { beacon.cancel() }
        try await car.bluez.addDevice(Self.stranger, rssi: -70)

        let through = try await scan(car, radio: false)
        #expect(through.log.contains("scanning through the daemon, in its active mode"), "\(through.log)")
        #expect(through.discoveries <= 1, "the scan started discovery itself: \(through.discoveries) StartDiscovery calls in 3 s\n\(through.log)")
        #expect(through.marks["C0:FF:EE:00:00:01"] == "car" && through.marks[Self.stranger] == "-", "\(through.marks)\n\(through.log.suffix(2000))")
        try await RecordingRig.waitFor("stopped watching the sightings", in: daemon)

        // --radio scans as before: a discovery of its own, cycled every second.
        let radio = try await scan(car, radio: true)
        #expect(radio.log.contains("scanning in active mode"), "\(radio.log)")
        #expect(radio.discoveries >= 2, "\(radio.discoveries) StartDiscovery calls in 3 s\n\(radio.log)")
        #expect(radio.marks["C0:FF:EE:00:00:01"] == "car", "\(radio.marks)")
    }

    /// A scan killed with SIGKILL cannot say goodbye: the daemon forgets it
    /// when it leaves the bus. A scan whose daemon stops ends with a warning.
    @Test func theDaemonForgetsAKilledScanAndAScanEndsWhenTheDaemonStops() async throws {
        let car = try await RecordingRig(pairVehicle: true)
        defer { car.stop() }
        let daemon = try await car.startRecording()
        defer { daemon.stop() }
        let beacon = try await car.keepBeaconInSight()
        defer { beacon.cancel() }

        let killed = try start(car, ["scan", "--json"])
        try await RecordingRig.waitFor("watches the sightings", in: daemon)
        killed.kill(SIGKILL)
        _ = try killed.wait(timeout: 10)
        try await RecordingRig.waitFor("left the bus", in: daemon)

        let orphan = try start(car, ["scan", "--json"])
        try await withDeadline(.seconds(20), "the scan's first sighting through the daemon") {
            while !orphan.output.contains("C0:FF:EE:00:00:01") { try await Task.sleep(for: .milliseconds(50)) }
        }
        daemon.kill(SIGTERM)
        #expect(try daemon.wait(timeout: 10) == 0)
        #expect(try orphan.wait(timeout: 10) == 0, "\(orphan.output.suffix(1500))")
        #expect(orphan.output.contains("the daemon stopped, and with it its sightings"), "\(orphan.output.suffix(1500))")
    }

    private func start(_ car: RecordingRig, _ arguments: [String]) throws -> ChildProcess {
        try ChildProcess(try WaymarkBinary.path, car.session.arguments + arguments, aptPackage: "(built by swift build)",
                         environment: car.bluez.bus.environment, logPath: car.session.work.file("scan-\(UUID().uuidString).log"))
    }

    /// A 3 s `scan --json` beside the daemon while the stranger advertises:
    /// its log, StartDiscovery calls in that time, and each address's pairing label ("-" for none).
    private func scan(_ car: RecordingRig, radio: Bool) async throws -> (log: String, discoveries: Int, marks: [String: String]) {
        let before = try await car.bluez.calls("StartDiscovery").count
        let scan = try start(car, ["scan", "--json", "--duration", "3"] + (radio ? ["--radio"] : []))
        while scan.isRunning {
            try await car.bluez.advertise(Self.stranger, rssi: -71)
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(try scan.wait(timeout: 10) == 0, "\(scan.output.suffix(2000))")
        let discoveries = try await car.bluez.calls("StartDiscovery").count - before
        var marks: [String: String] = [:]
        for line in scan.output.split(separator: "\n") where line.hasPrefix("{") {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            marks[object["address"] as? String ?? ""] = (object["pairing"] as? [String: Any])?["label"] as? String ?? "-"
        }
        return (scan.output, discoveries, marks)
    }
}
