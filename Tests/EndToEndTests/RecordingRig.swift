import Advertisements
import DBus
import Foundation
import PeerHarness

/// Everything `waymark run` talks to in the end-to-end recording tests:
/// glewlwyd and the backend (through `SessionCommandTests.Rig`), the BlueZ
/// mock with an adapter, and gpsd reading a simulated receiver (or, without
/// one, gpsd with no device).
final class RecordingRig: @unchecked Sendable {
    static let beacon = "C0:FF:EE:00:00:01"
    static let vehicle = "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0:100:0"

    let session: SessionCommandTests.Rig
    let bluez: BlueZTestRig
    let receiver: SimulatedReceiver?
    let gpsdPort: Int
    private(set) var gpsd: GPSDaemon?

    /// `config` is appended to the session's config; `[Location]` is set here.
    /// `location` replaces the gpsd source (say, `nmea:///dev/pts/N`).
    init(config: String = "", gpsdRunning: Bool = true, pairVehicle: Bool = false, withReceiver: Bool = true,
         accessTokenSeconds: Int = 3600, location: String? = nil) async throws {
        session = try SessionCommandTests.Rig(accessTokenSeconds: accessTokenSeconds)
        bluez = try await BlueZTestRig()
        try await bluez.addAdapter()
        receiver = withReceiver ? try SimulatedReceiver() : nil
        gpsdPort = try FreePort.tcp()
        let text = try String(contentsOfFile: session.work.file("waymark.conf"), encoding: .utf8)
            + "\n[Location]\nSource = \(location ?? "gpsd://127.0.0.1:\(gpsdPort)")\n\n" + config
        try text.write(toFile: session.work.file("waymark.conf"), atomically: true, encoding: .utf8)
        if gpsdRunning { try startGPSD() }
        if pairVehicle { _ = try session.run(["pair", "--ibeacon", Self.vehicle, "--role", "vehicle", "--label", "car"]) }
        _ = try session.run(["login", "--username", Glewlwyd.username, "--password-stdin"], stdin: Glewlwyd.password + "\n")
    }

    func startGPSD() throws {
        gpsd = try GPSDaemon(device: receiver?.terminal.path, port: gpsdPort, directory: session.work)
    }

    func startDaemon() async throws -> ChildProcess {
        try await QueueCommandTests.startDaemon(session, on: bluez.bus)
    }

    static func ibeacon() -> DBusDictEntry {
        DBusDictEntry(.uint16(0x004C), .variant(.bytes(Advertisement.parseHex(BluetoothCommandTests.ibeaconHex)!)))
    }

    /// The paired beacon advertising every 200 ms until the task is cancelled.
    func keepBeaconInSight() async throws -> Task<Void, Never> {
        try await bluez.addDevice(Self.beacon, manufacturer: [Self.ibeacon()], rssi: -50)
        let bluez = bluez
        return Task {
            while !Task.isCancelled {
                try? await bluez.advertise(Self.beacon, manufacturer: [Self.ibeacon()], rssi: -55)
                try? await Task.sleep(for: .milliseconds(200))
            }
        }
    }

    /// Starts the daemon and waits until it records.
    func startRecording() async throws -> ChildProcess {
        let daemon = try await startDaemon()
        try await Self.waitFor("recording: running", in: daemon)
        return daemon
    }

    /// Starts the daemon, waits until it records, then keeps the paired
    /// beacon in sight for `seconds` and lets it go quiet.
    func startAndDrive(seconds: Double) async throws -> ChildProcess {
        let daemon = try await startRecording()
        let beacon = try await keepBeaconInSight()
        try await Task.sleep(for: .seconds(seconds))
        beacon.cancel()
        return daemon
    }

    /// Waits until `text` appears in the daemon's log after `offset` characters.
    static func waitFor(_ text: String, in daemon: ChildProcess, after offset: Int = 0) async throws {
        try await withDeadline(.seconds(30), text) {
            while !daemon.output.dropFirst(offset).contains(text) { try await Task.sleep(for: .milliseconds(50)) }
        }
    }

    func stop() {
        gpsd?.stop()
        receiver?.stop()
        bluez.stop()
        session.stop()
    }
}
