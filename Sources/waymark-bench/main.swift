import BlueZ
import DBus
import Foundation
import PeerHarness

let arguments = CommandLine.arguments.dropFirst()
let quick = arguments.contains("--quick")

func bench() async throws -> BenchReport {
    var report = BenchReport()
    try await DBusBench(quick: quick).run(into: &report)
    try StorageBench(quick: quick).run(into: &report)
    try await ScanBench(quick: quick).run(into: &report)
    report.add("rss", ResourceUsage.residentMegabytes, unit: "MiB", note: "peak resident set of the bench process")
    return report
}

do {
    if let index = arguments.firstIndex(of: "--receive-burst") {
        let rest = Array(arguments[arguments.index(after: index)...])
        try await ScanBench.receiveBurst(address: rest[0], device: rest[1], count: Int(rest[2]) ?? 0)
        exit(0)
    }
    if arguments.contains("--profile-receive") {
        let rig = try await BlueZTestRig()
        try await rig.addAdapter()
        try await rig.addDevice("C0:FF:EE:00:00:01")
        let scanner = BlueZScanner(connection: rig.connection, clock: ContinuousClock())
        try await scanner.start()
        let cpu0 = ResourceUsage.cpuSeconds
        async let emitted = rig.mock.control(rig.connection, interface: "io.waymark.BlueZMock", "EmitBurst",
                                              [.objectPath("/org/bluez/hci0/dev_C0_FF_EE_00_00_01"), .uint32(30_000)])
        var n = 0
        for await s in scanner.sightings where s.manufacturerData[0xFFFF] != nil {
            n += 1
            if n == 30_000 { break }
        }
        _ = try await emitted
        print("µs CPU per sighting:", (ResourceUsage.cpuSeconds - cpu0) / 30_000 * 1e6)
        rig.stop()
        exit(0)
    }
    if arguments.contains("--message-cost") {
        let message = try DBusMessage.signal(path: "/org/bluez/hci0/dev_C0_FF_EE_00_00_01", interface: "org.freedesktop.DBus.Properties",
            name: "PropertiesChanged", arguments: [.string("org.bluez.Device1"),
                .vardict(["RSSI": .int16(-50), "ManufacturerData": .dictionary(key: "q", value: "v", [DBusDictEntry(.uint16(0xFFFF), .variant(.bytes([1, 2, 3, 4])))])]),
                .array(element: "s", [])])
        let wire = try DBusMessage(demarshalling: message.marshal())
        let n = 200_000
        var ok = 0
        let t = ContinuousClock.now
        for _ in 0..<n { if let a = try? wire.arguments(), a.count == 3 { ok += 1 } }
        let d = ContinuousClock.now - t
        print("arguments():", Double(d.components.attoseconds) / 1e9 / Double(n) + Double(d.components.seconds) * 1e9 / Double(n), "ns", ok)
        exit(0)
    }
    if let index = arguments.firstIndex(of: "--many-devices") {
        try await ScanBench.countDevices(address: arguments[arguments.index(after: index)])
        exit(0)
    }
    if let index = arguments.firstIndex(of: "--decode-only") {
        var report = BenchReport()
        ScanBench(quick: true).decodeOnly(arguments[arguments.index(after: index)], into: &report)
        print(report.text)
        exit(0)
    }
    let report = try await bench()
    print(arguments.contains("--json") ? report.json : report.text)
} catch {
    FileHandle.standardError.write(Data("waymark-bench: \(error)\n".utf8))
    exit(1)
}
