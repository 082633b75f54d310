import Basics
import BlueZ
import Capture
import Foundation
import Radio
import Vocabulary

/// A synthesised capture of a drive in busy air, for replay's tests and
/// bench: the car's iBeacon twice a second while it is in range, other
/// advertisers (phones, tags) each several times a second all the time, and
/// gpsd reporting a fix every second along a straight road.
public struct BusyAirCapture: Sendable {
    public static let vehicle = "ibeacon:e2c56db5-dffb-48d2-b060-d0f5a71096e0:100:0"
    static let ibeacon: [UInt8] = [
        0x02, 0x15, 0xE2, 0xC5, 0x6D, 0xB5, 0xDF, 0xFB, 0x48, 0xD2, 0xB0, 0x60, 0xD0, 0xF5, 0xA7, 0x10, 0x96, 0xE0,
        0x00, 0x64, 0x00, 0x00, 0xC5,
    ]

    /// How long the capture runs, in seconds.
    public var seconds: Int
    /// When the beacon is in range, in seconds from the start.
    public var beaconInRange: [Range<Int>]
    public var noiseDevices = 30
    /// Adverts per second from each noise device.
    public var noiseRate = 5
    public var config = "[Recording]\nBeaconLostTimeout = 30s\nReopenWindow = 5s\n"
    /// The system clock's sync state; unsynced, the receiver's time dates samples.
    public var clockSynchronized = true
    /// The receiver's seconds per real second (gpsfake plays a log faster
    /// than real time), and the length of its log in receiver seconds,
    /// after which its time starts over, as gpsfake's does when it loops.
    public var receiverSpeed = 1.0
    public var receiverLoop: Double?

    public init(seconds: Int, beaconInRange: [Range<Int>]) {
        (self.seconds, self.beaconInRange) = (seconds, beaconInRange)
    }

    /// Writes the capture to `path` (which must not exist) with the real
    /// writer, and returns the number of records.
    @discardableResult
    public func write(to path: String) throws -> Int {
        let (wall0, boot0) = (1_796_000_000.0, 1000.0)
        let pairings = #"[{"has_bindkey":false,"id":1,"identity":"\#(Self.vehicle)","label":"car","role":"vehicle"}]"#
        let synchronized = clockSynchronized
        let writer = try CaptureWriter(.file(path), at: .init(wall: wall0, boot: boot0, bootID: "busy-air", synchronized: synchronized)) { wall in
            CaptureHeader(waymarkVersion: "synthetic", started: wall, bootID: "busy-air", config: config, pairings: pairings)
        }
        var count = 0
        func add(_ t: Double, _ body: CaptureRecord.Body) {
            writer.append(CaptureRecord(boot: boot0 + t, wall: wall0 + t, synchronized: synchronized, body: body))
            count += 1
        }
        add(0, .state(.running(true)))
        add(0, .state(.scanMode("active")))
        let perSecond = 2 + noiseDevices * noiseRate
        for second in 0..<seconds {
            let inRange = beaconInRange.contains { $0.contains(second) }
            for slot in 0..<perSecond {
                let t = Double(second) + Double(slot) / Double(perSecond)
                if slot % (perSecond / 2) == 0 {
                    if inRange {
                        add(t, .advert(adapter: "hci0", Sighting(address: BluetoothAddress(value: 0xC0FF_EE00_0001, kind: .public), rssi: -55 - (second + slot) % 9,
                                                                 manufacturerData: [0x004C: Self.ibeacon], uptimeNanoseconds: UInt64(t * 1e9))))
                    }
                    continue
                }
                let device = slot % noiseDevices
                let data: [UInt8] = [0x10, 0x05, UInt8(device), UInt8(second & 0xff), UInt8(slot & 0xff), 0x1c]
                add(t, .advert(adapter: "hci0", Sighting(address: BluetoothAddress(value: 0x5A00_0011_2233 | UInt64(device) << 32, kind: .random),
                                                         rssi: -70 - device % 25, manufacturerData: [0x004C: data], uptimeNanoseconds: UInt64(t * 1e9))))
            }
            let played = Double(second) * receiverSpeed
            let time = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: wall0 + (receiverLoop.map { played.truncatingRemainder(dividingBy: $0) } ?? played)))
            let line = #"{"class":"TPV","device":"/dev/ttyACM0","mode":3,"time":"\#(time)","lat":\#(48.2 + Double(second) * 1e-4),"lon":8.41,"speed":11.1}"#
            add(Double(second) + 0.05, .location(LocationLine(speaks: .gpsd, bytes: Array(line.utf8))))
            // The reader's settle alarm closes the epoch, as a daemon captures it.
            add(Double(second) + 0.35, .state(.epochClosed(afterLastLine: 0.3)))
            if second > 0, second % 300 == 0 { add(Double(second), .state(.health(seconds: 300))) }
        }
        add(Double(seconds), .state(.running(false)))
        writer.close(at: .init(wall: wall0 + Double(seconds), boot: boot0 + Double(seconds), bootID: "busy-air", synchronized: synchronized))
        return count
    }
}
