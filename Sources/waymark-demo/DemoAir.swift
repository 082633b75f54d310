import Basics
import DBus
import Foundation
import Peers
import Synchronization

/// What the demo's BlueZ mock hears: the car's iBeacon, every 300 ms,
/// coming into range as the driver walks up, its RSSI wandering while
/// driving, fading as the driver walks away; and a RuuviTag in the cabin
/// (data format 5) every second, warming slowly.
final class DemoAir: Sendable {
    static let beaconAddress = "C0:FF:EE:00:00:01"
    static let beaconIdentity = "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0:100:0"
    static let tagAddress = "D7:E1:5A:20:11:C4"

    enum Beacon: Sendable { case approaching, present, leaving, gone }

    private let beacon = Mutex(Beacon.approaching)
    private let tasks = Mutex<[Task<Void, Never>]>([])

    /// Starts both advertisers; the beacon approaches.
    func start(_ bluez: BlueZTestRig) async throws {
        try await bluez.addDevice(Self.beaconAddress, manufacturer: [Self.ibeacon], rssi: -96)
        try await bluez.addDevice(Self.tagAddress, manufacturer: [Self.ruuvi(second: 0)], rssi: -71)
        let car = Task { [self] in
            var random = SplitMix64(seed: 7)
            var rssi = -96
            while !Task.isCancelled {
                switch self.beacon.withLock({ $0 }) {
                case .approaching:
                    rssi = min(rssi + 5, -62)
                    if rssi == -62 { self.beacon.withLock { $0 = .present } }
                case .present: rssi = max(-74, min(-54, rssi + Int.random(in: -3...3, using: &random)))
                case .leaving:
                    rssi -= 10
                    if rssi < -96 { self.beacon.withLock { $0 = .gone } }
                case .gone: return
                }
                try? await bluez.advertise(Self.beaconAddress, manufacturer: [Self.ibeacon], rssi: Int16(rssi))
                try? await Task.sleep(for: .milliseconds(300))
            }
        }
        let tag = Task {
            var second = 1
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(1))
                try? await bluez.advertise(Self.tagAddress, manufacturer: [Self.ruuvi(second: second)], rssi: Int16(-71 + second % 3))
                second += 1
            }
        }
        tasks.withLock { $0 = [car, tag] }
    }

    /// The driver walks away: the beacon fades out and goes quiet.
    func leave() { beacon.withLock { if $0 != .gone { $0 = .leaving } } }

    func stop() { tasks.withLock { $0.forEach { $0.cancel() } } }

    private static let ibeacon = DBusDictEntry(.uint16(0x004C), .variant(.bytes([
        0x02, 0x15, 0xE2, 0xC5, 0x6D, 0xB5, 0xDF, 0xFB, 0x48, 0xD2, 0xB0, 0x60, 0xD0, 0xF5, 0xA7, 0x10, 0x96, 0xE0,
        0x00, 0x64, 0x00, 0x00, 0xC5,
    ])))

    /// Ruuvi's data format 5 (RAWv2), as the tag sends it `second` s in:
    /// 21.0 °C warming 0.02 °C a second, humidity drying from 48 %, 1013.25 hPa,
    /// 1 g down, 2.95 V at +4 dBm, its sequence number counting.
    static func ruuvi(second: Int) -> DBusDictEntry {
        // Two bytes, big-endian: signed fields in two's complement.
        func int16(_ value: Int) -> [UInt8] { let bits = UInt16(truncatingIfNeeded: value); return [UInt8(bits >> 8), UInt8(bits & 0xFF)] }
        let temperature = int16(Int(((21.0 + 0.02 * Double(second)) / 0.005).rounded()))
        let humidity = int16(Int(((48.0 - 0.01 * Double(second)) / 0.0025).rounded()))
        let pressure = int16(101_325 - 50_000)
        let power = int16((2950 - 1600) << 5 | (4 + 40) / 2)
        let acceleration: [[UInt8]] = [int16(0), int16(0), int16(1000)]
        var payload: [UInt8] = [0x05]
        for field in [temperature, humidity, pressure] + acceleration + [power, [UInt8(second % 256)], int16(second % 65_535)] {
            payload += field
        }
        payload += [0xD7, 0xE1, 0x5A, 0x20, 0x11, 0xC4]
        return DBusDictEntry(.uint16(0x0499), .variant(.bytes(payload)))
    }
}
