import Basics
import BlueZ
import Config
import DBus
import Foundation
import Pairings
import Peers
import Radio
import Synchronization
import Vocabulary

/// The whole stack's CPU per advert in the real-BlueZ VM (`Tests/VM/
/// vm-stack-cost.sh`): Waymark reading the kernel's management channel
/// against a dbus-fast receiver doing bleak's work, both on the same
/// adapter at once, so over the same adverts; bluetoothd and dbus-daemon
/// beside them. The VM runs under QEMU's software emulation, so the
/// figures are ratios between processes, not a Pi's microseconds.
struct VMStackBench {
    var quick: Bool
    static let scripts = FileManager.default.currentDirectoryPath + "/Tests/VM"

    func run(into report: inout BenchReport) async throws {
        // Without advertisement monitors, Waymark cycles discovery; with
        // them (`bluetoothd --experimental`), it scans under a monitor.
        try await run(bluetoothdFlags: "", label: "discovery", into: &report)
        try await run(bluetoothdFlags: "--experimental", label: "monitor", into: &report)
    }

    private func run(bluetoothdFlags: String, label: String, into report: inout BenchReport) async throws {
        let window = quick ? 30 : 90
        // Kept (without the binary) for a look at the logs.
        let job = try TemporaryDirectory("waymark-bench-vm-\(label)")
        defer { ["waymark", "waymark-bench"].forEach { unlink(job.file($0)) } }
        let files = FileManager.default
        try files.copyItem(atPath: try WaymarkBinary.named("waymark"), toPath: job.file("waymark"))
        try files.copyItem(atPath: ScanBench.executable, toPath: job.file("waymark-bench"))
        try files.copyItem(atPath: Self.scripts + "/vm-stack-cost.sh", toPath: job.file("vm-job.sh"))
        for script in ["vm-lib.sh", "vhci-crypto.sh"] { try files.copyItem(atPath: Self.scripts + "/" + script, toPath: job.file(script)) }
        try files.copyItem(atPath: FileManager.default.currentDirectoryPath + "/hardware/io.waymark.Gateway1.conf",
                           toPath: job.file("io.waymark.Gateway1.conf"))
        chmod(job.path, 0o755)
        try "[Bluetooth]\nAdapter = hci2\n".write(toFile: job.file("stack.conf"), atomically: true, encoding: .utf8)
        let venv = try PythonPeers.environment()
        try """
            ADVERT=1aff4c000215e2c56db5dffb48d2b060d0f5a71096e000640000c5
            WINDOW=\(window)
            BLUETOOTHD_FLAGS=\(bluetoothdFlags)
            PYTHON=\(venv)/bin/python
            RECEIVER=\(PythonPeers.template("stack_receiver_fast.py"))

            """.write(toFile: job.file("job.env"), atomically: true, encoding: .utf8)
        let (console, code) = try BlueZVM.run(job: job, scripts: Self.scripts, timeout: Double(window) + 600)
        guard code == "0" else {
            throw PeerError.startFailed("the stack-cost VM (exit \(code ?? "none"))", output: String(console.suffix(3000)) + "\n"
                                        + ["stack-scanner.log", "stack-scan.log", "stack-fast.log"].map { text(job, $0).suffix(1500) }.joined(separator: "\n"))
        }
        let before = Self.snapshot(text(job, "stack-before")), after = Self.snapshot(text(job, "stack-after"))
        guard let start = before.time, let end = after.time else { throw PeerError.startFailed("the stack-cost VM", output: "no window times") }
        func ticks(_ name: String) -> Double { Double((after.ticks[name] ?? 0) - (before.ticks[name] ?? 0)) }
        func inWindow(_ times: [Double]) -> Int { times.filter { $0 >= start && $0 < end }.count }
        func heardInWindow(_ name: String) -> Int {
            Heard.read(text(job, name)).filter { $0.time >= start && $0.time < end }.reduce(0) { $0 + $1.count }
        }
        let heard = (scanner: heardInWindow("stack-scanner.txt"), scan: inWindow(Self.times(ndjson: text(job, "stack-scan.ndjson"))),
                     fast: heardInWindow("stack-fast.txt"))
        guard heard.scanner > 0, heard.scan > 0, heard.fast > 0 else {
            throw PeerError.startFailed("the stack-cost VM", output: "adverts in the window: \(heard)")
        }
        // Milliseconds of CPU per advert heard; a tick is 10 ms.
        func perAdvert(_ ticks: Double, _ adverts: Int) -> Double { ticks * 10 / Double(adverts) }
        let scanLog = text(job, "stack-scan.log")
        let mode = scanLog.split(separator: "\n").first { $0.contains("scanning in ") }.map { String($0.drop { $0 != "(" }) } ?? "(no mode logged)"
        let cycles = scanLog.split(separator: "\n").last { $0.contains("scan: ") }.map { "; " + String($0.drop { $0 != "s" }) } ?? ""
        let common = "bluetoothd \(bluetoothdFlags.isEmpty ? "without flags" : bluetoothdFlags); a \(window) s window in the VM (QEMU TCG), "
            + "every receiver on hci2 at once; adverts heard: scanner \(heard.scanner), scan \(heard.scan), dbus-fast \(heard.fast); logs in \(job.path)"
        let fast = perAdvert(ticks("dbus-fast"), heard.fast)
        report.add("vm.\(label).scanner_cpu_per_advert", perAdvert(ticks("scanner"), heard.scanner), unit: "ms", baseline: fast,
                   baselineName: "dbus-fast receiver (bleak's work)",
                   note: "Waymark's scanner as the daemon runs it (\(text(job, "stack-scanner.log").trimmingCharacters(in: .whitespacesAndNewlines)), "
                       + "the daemon's discovery cycle; \(common)")
        report.add("vm.\(label).scan_cli_cpu_per_advert", perAdvert(ticks("scan"), heard.scan), unit: "ms", baseline: fast,
                   baselineName: "dbus-fast receiver", note: "waymark scan --json, which also decodes each sighting and prints it as JSON, \(mode)\(cycles)")
        report.add("vm.\(label).scanner_vs_dbus_path", perAdvert(ticks("scanner"), heard.scanner), unit: "ms",
                   baseline: perAdvert(ticks("dbus-fast") + ticks("dbus-daemon"), heard.fast), baselineName: "dbus-fast + dbus-daemon",
                   note: "what reading adverts costs beyond bluetoothd, which handles every advert either way")
        report.add("vm.\(label).bluetoothd_cpu_per_advert", perAdvert(ticks("bluetoothd"), heard.fast), unit: "ms",
                   note: "bluetoothd, serving every receiver's discovery or monitor and sending Device1 signals")
        report.add("vm.\(label).dbus_daemon_cpu_per_advert", perAdvert(ticks("dbus-daemon"), heard.fast), unit: "ms",
                   note: "routing Device1 signals to the dbus-fast receiver")
    }

    /// The Waymark receiver inside the VM: the daemon's scanner on the
    /// system bus, on `adapter`, in the mode `auto` picks (mgmt as root),
    /// with the recording cycle, and the car's iBeacon paired: the scan
    /// watches for what the daemon's would (its monitor patterns) and each
    /// sighting is matched against the pairing on the scanner's queue, as
    /// the recorder does. Writes the time of each sighting after `seconds`,
    /// as the dbus-fast receiver does.
    static func receiveAdverts(adapter: String, seconds: Int, mode: ScanMode? = nil) async throws {
        let configuration = Configuration()
        var options = configuration.bluetooth.scannerOptions(cycle: configuration.recording.scanCycle)
        options.adapter = adapter
        if let mode { options.mode = mode }
        let paired = PairedDevices([Pairing(id: 1, identity: car, role: .vehicle, label: "car", bindkey: nil)])
        options.monitorPatterns = paired.monitorPatterns
        let shed = Counter()
        options.onShed = { shed.add() }
        let address = ProcessInfo.processInfo.environment["DBUS_SYSTEM_BUS_ADDRESS"] ?? "unix:path=/run/dbus/system_bus_socket"
        let connection = try await DBusConnection.connect(address: address)
        let heard = Heard()
        let boot = ContinuousClock()
        let started = boot.now
        let scanner = BlueZScanner(connection: connection, options: options, clock: ContinuousClock()) { sighting in
            let matched = paired.match(sighting, at: { started.duration(to: boot.now) / .seconds(1) }) != nil
            heard.add(sighting.address, matched: matched)
            return matched
        }
        try await scanner.start()
        FileHandle.standardError.write(Data("receiving in \(await scanner.reception?.mode.rawValue ?? "no") mode\n".utf8))
        let loops = Task { await scanner.run() }
        try await Task.sleep(for: .seconds(seconds))
        let cycles = await scanner.cycles
        await scanner.stop()
        await loops.value
        FileHandle.standardError.write(Data("\(cycles.summary); \(shed.value) strangers' adverts shed\n".utf8))
        print(heard.lines.joined(separator: "\n"))
    }

    /// The beacon both benches' controllers carry (`AirBench.population`, `RealBlueZTests.advert`).
    static let car = DeviceIdentity.iBeacon(uuid: "e2c56db5-dffb-48d2-b060-d0f5a71096e0", major: 100, minor: 0)

    /// Adverts shed, counted on the scanner's queue.
    final class Counter: Sendable {
        private let count = Mutex(0)
        func add() { count.withLock { $0 += 1 } }
        var value: Int { count.withLock { $0 } }
    }

    /// Sightings, kept on the scanner's queue: each paired one with its time
    /// and address, the others counted per tenth of a second (a window's
    /// edges cut within one), so that what the receiver keeps does not grow
    /// with the adverts it hears, and its memory is the scanner's.
    final class Heard: Sendable {
        private let kept = Mutex((paired: [(time: Double, address: BluetoothAddress)](), others: [Int: Int]()))
        func add(_ address: BluetoothAddress, matched: Bool) {
            let now = Date().timeIntervalSince1970
            kept.withLock {
                if matched { $0.paired.append((now, address)) } else { $0.others[Int(now * 10), default: 0] += 1 }
            }
        }
        /// `TIME ADDRESS` per paired sighting, `TIME others COUNT` per tenth of a second.
        var lines: [String] {
            kept.withLock { kept in
                kept.paired.map { String(format: "%.6f ", $0.time) + $0.address.description }
                    + kept.others.sorted { $0.key < $1.key }.map { String(format: "%.1f others %d", Double($0.key) / 10, $0.value) }
            }
        }

        /// What `lines` wrote, read back: each sighting's time and address,
        /// or a tenth of a second's count of the others (with no address).
        static func read(_ text: String) -> [(time: Double, count: Int, address: Substring?)] {
            text.split(separator: "\n").compactMap { line in
                let fields = line.split(separator: " ")
                guard let time = fields.first.flatMap({ Double($0) }) else { return nil }
                if fields.count == 3, fields[1] == "others" { return (time, Int(fields[2]) ?? 0, nil) }
                return fields.count == 2 ? (time, 1, fields[1]) : nil
            }
        }
    }

    /// A file the job wrote; empty when it wrote none.
    private func text(_ job: TemporaryDirectory, _ name: String) -> String {
        (try? String(contentsOfFile: job.file(name), encoding: .utf8)) ?? ""
    }

    /// `start|end TIME`, then `name ticks` lines.
    static func snapshot(_ text: String) -> (time: Double?, ticks: [String: Int]) {
        var time: Double?
        var ticks: [String: Int] = [:]
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count == 2 else { continue }
            if fields[0] == "start" || fields[0] == "end" { time = Double(fields[1]) } else { ticks[String(fields[0])] = Int(fields[1]) }
        }
        return (time, ticks)
    }

    /// The `time` of each line of `scan --json`, in seconds since 1970.
    static func times(ndjson: String) -> [Double] {
        ndjson.split(separator: "\n").compactMap { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  let text = object["time"] as? String else { return nil }
            return CivilTime.parseISO8601(text)
        }
    }
}
