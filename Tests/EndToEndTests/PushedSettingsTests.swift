import Foundation
import PeerHarness
import Testing

/// The four settings the fleet pushes take effect in the running daemon,
/// at once, each over a local value that would hide it.
@Suite(.serialized)
struct PushedSettingsTests {
    /// A daemon recording with no beacon, fetching settings every second.
    static func running(_ config: String, withReceiver: Bool = false) async throws -> (RecordingRig, ChildProcess) {
        let car = try await RecordingRig(config: "[Backend]\nSettingsInterval = 1s\n\n" + config, withReceiver: withReceiver)
        return (car, try await car.startRecording())
    }

    static func push(_ settings: String, to car: RecordingRig, daemon: ChildProcess) async throws {
        try car.session.backend.setSettings(#"{"settings":\#(settings),"commands":[]}"#)
        try await RecordingRig.waitFor("the fleet's settings changed", in: daemon)
    }

    static func setting(_ key: String, of car: RecordingRig) throws -> [String: Any]? {
        (try SessionWhileRunningTests.status(car)["settings"] as? [[String: Any]])?.first { $0["key"] as? String == key }
    }

    /// Local batches of 500 with an hour's wait hold every health sample
    /// back; a pushed size of 2 sends them at once, two at a time.
    @Test func aPushedBatchSizeSendsTheQueueInBatchesOfThatSize() async throws {
        let (car, daemon) = try await Self.running("[Bluetooth]\nHealthInterval = 1s\n\n[Upload]\nBatchSize = 500\nBatchAge = 1h\n")
        defer { car.stop(); daemon.stop() }
        try await Task.sleep(for: .seconds(3))
        let before = try car.session.backend.summary().batch_sizes.count
        try await Self.push(#"{"upload_batch_size":2}"#, to: car, daemon: daemon)
        try await withDeadline(.seconds(20), "three batches after the push") {
            while try car.session.backend.summary().batch_sizes.count < before + 3 { try await Task.sleep(for: .milliseconds(100)) }
        }
        let after = try car.session.backend.summary().batch_sizes.dropFirst(before)
        #expect(after.allSatisfy { $0 <= 2 }, "\(Array(after))")
        let status = try Self.setting("Upload.BatchSize", of: car)
        #expect(status?["value"] as? String == "2" && status?["source"] as? String == "pushed", "\(String(describing: status))")
        #expect(try Self.setting("Recording.GapThreshold", of: car)?["source"] as? String == "local")
    }

    /// With no adverts at all, a pushed 1 s watchdog starts the recovery
    /// ladder within seconds, where the local minute would not yet have.
    @Test func aPushedScanWatchdogTakesTheNextRecoveryStepAfterItsPeriod() async throws {
        let (car, daemon) = try await Self.running("[Bluetooth]\nScanWatchdog = 10min\n")
        defer { car.stop(); daemon.stop() }
        try await Task.sleep(for: .seconds(2))
        #expect(!daemon.output.contains("recovery step"))
        let offset = daemon.output.count
        try await Self.push(#"{"scan_watchdog_s":1}"#, to: car, daemon: daemon)
        try await RecordingRig.waitFor("recovery step: restart-discovery", in: daemon, after: offset)
        #expect(try Self.setting("Bluetooth.ScanWatchdog", of: car)?["value"] as? String == "1s")
    }

    /// A stranger heard once is removed from BlueZ one pushed second after
    /// it went quiet, not after the local hour.
    @Test func aPushedDeviceExpiryRemovesAQuietStrangerFromBlueZ() async throws {
        let (car, daemon) = try await Self.running("[Bluetooth]\nDeviceExpiry = 1h\n")
        defer { car.stop(); daemon.stop() }
        try await car.bluez.addDevice("DE:AD:BE:EF:00:07", rssi: -70)
        try await car.bluez.advertise("DE:AD:BE:EF:00:07", rssi: -71)
        try await Task.sleep(for: .seconds(2))
        #expect(try await car.bluez.calls("RemoveDevice").isEmpty)
        try await Self.push(#"{"device_expiry_s":1}"#, to: car, daemon: daemon)
        try await withDeadline(.seconds(10), "RemoveDevice") {
            while try await car.bluez.calls("RemoveDevice").isEmpty { try await Task.sleep(for: .milliseconds(100)) }
        }
    }

    /// The adapter off for 3 s: no gap under the local minute, a gap under
    /// a pushed second.
    @Test func aPushedGapThresholdReportsAShortInterruptionAsATelemetryGap() async throws {
        let (car, daemon) = try await Self.running("[Recording]\nGapThreshold = 1min\n")
        defer { car.stop(); daemon.stop() }
        func interrupt() async throws {
            let offset = daemon.output.count
            try await car.bluez.setPowered(false)
            try await Task.sleep(for: .seconds(3))
            try await car.bluez.setPowered(true)
            try await RecordingRig.waitFor("recording: running", in: daemon, after: offset)
        }
        try await interrupt()
        #expect(!(try SessionWhileRunningTests.events(car.session).contains("telemetryGapDetected")))
        try await Self.push(#"{"gap_threshold_s":1}"#, to: car, daemon: daemon)
        try await interrupt()
        #expect(try SessionWhileRunningTests.events(car.session).contains("telemetryGapDetected"))
    }
}
