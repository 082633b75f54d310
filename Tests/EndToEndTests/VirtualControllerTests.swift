import Foundation
import PeerHarness
import Testing

/// The busy-air controller (Tests/VM/vhci-air.py) as the real kernel and
/// bluetoothd see it, in the VM: its advertisers are found by the kernel's
/// discovery (`btmgmt find`) and by bluetoothd's (`bluetoothctl scan on`).
struct VirtualControllerTests {
    static let car = "C0:FF:EE:00:00:01"

    @Test func theKernelAndBluetoothdHearThePopulationOfTheVirtualController() throws {
        _ = try BlueZVM.kernel()
        for (program, package) in BlueZVM.programs { _ = try ChildProcess.locate(program, aptPackage: package) }
        _ = try ChildProcess.locate("bluetoothctl", aptPackage: "bluez")
        let job = try TemporaryDirectory("waymark-air")
        let files = FileManager.default
        for script in ["vm-air.sh", "vm-lib.sh", "vhci-crypto.sh", "vhci-air.py"] {
            try files.copyItem(atPath: RealBlueZTests.vmDirectory + "/" + script, toPath: job.file(script == "vm-air.sh" ? "vm-job.sh" : script))
        }
        try files.copyItem(atPath: RealBlueZTests.vmDirectory + "/../../hardware/io.waymark.Gateway1.conf", toPath: job.file("io.waymark.Gateway1.conf"))
        try """
            {"devices": [{"name": "car", "address": "\(Self.car)", "interval_ms": 200,
                          "ibeacon": ["e2c56db5-dffb-48d2-b060-d0f5a71096e0", 100, 0], "rssi": -55}],
             "generate": {"ibeacon": 3, "ruuvi": 3, "bthome": 3, "eddystone": 3, "phone": 3, "noise": 5}}
            """.write(toFile: job.file("population.json"), atomically: true, encoding: .utf8)

        let (console, code) = try BlueZVM.run(job: job, scripts: RealBlueZTests.vmDirectory, timeout: 600)
        let logs = ["air.log", "btmgmt.log", "btmgmt-find.txt", "bluetoothctl.txt", "bluetoothd.log"].map { name in
            "--- \(name)\n" + ((try? String(contentsOfFile: job.file(name), encoding: .utf8)) ?? "(none)").suffix(2000)
        }.joined(separator: "\n")
        try #require(code == "0", "the VM's job failed (\(code ?? "no exit code")); its files are in \(job.path):\n\(console.suffix(3000))\n\(logs)")

        let truth = try String(contentsOfFile: job.file("air-truth.log"), encoding: .utf8).split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
        let population = truth.filter { $0.first == "device" }.map { (address: $0[1], name: $0[2]) }
        #expect(population.count == 21)
        // The kernel scans with the duplicate filter on: within one scan
        // enable each advertiser is reported once; the next enable clears it.
        // A window is one scan enable, from "scan on" to "scan off" (or the
        // log's end); bluetoothd may restart discovery just before
        // bluetoothctl stops it, so a window can be shorter than the car's
        // interval, and only those of a second or more must hold the car.
        var windows: [(opened: Double, closed: Double?, reports: [String])] = []
        for line in truth where line.count > 2 {
            guard let time = Double(line[0]) else { continue }
            if line[1] == "scan", line[2] == "on" { windows.append((time, nil, [])) }
            if line[1] == "scan", line[2] == "off", let last = windows.indices.last, windows[last].closed == nil { windows[last].closed = time }
            if line[1] == "sent", line.count > 4, let last = windows.indices.last, windows[last].closed == nil {
                windows[last].reports.append(line[2] + " " + line[4])
            }
        }
        let reports = windows.map(\.reports)
        #expect(windows.count >= 2 && reports.allSatisfy { Set($0).count == $0.count }, "\(reports)")
        let long = windows.filter { window in window.closed.map { $0 - window.opened >= 1 } ?? false }
        #expect(long.count >= 2 && long.allSatisfy { $0.reports.contains(Self.car + " adv") }, "\(windows)")

        // The kernel's discovery reports every advertiser; bluetoothd's
        // general discovery leaves out those whose adverts carry no
        // discoverable flags (the noise).
        let find = try String(contentsOfFile: job.file("btmgmt-find.txt"), encoding: .utf8)
        let found = population.filter { find.contains("dev_found: " + $0.address) }
        #expect(found.count == population.count, "btmgmt find saw \(found.count) of \(population.count):\n\(find.suffix(3000))")
        let scan = try String(contentsOfFile: job.file("bluetoothctl.txt"), encoding: .utf8)
        let discoverable = population.filter { !$0.name.hasPrefix("noise-") }
        let new = discoverable.filter { scan.contains("Device " + $0.address) }
        #expect(new.count == discoverable.count && discoverable.count == 16, "bluetoothctl saw \(new.count) of \(discoverable.count):\n\(scan.suffix(3000))")
    }
}
