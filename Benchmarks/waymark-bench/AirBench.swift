import Foundation
import Peers

/// `make bench-air`: the whole stack in busy air at the scale of a car
/// park. In the real-BlueZ VM, the virtual controller (Tests/VM/vhci-air.py)
/// carries the car's beacon among 10 to 1,000 other devices, and each
/// receiver hears it in turn (Tests/VM/vm-air-cost.sh): Waymark's scanner in
/// mgmt, active and passive mode as the daemon runs it (the beacon paired,
/// bluetoothd with `--experimental`), `stock`: Waymark's scanner in the mode
/// `auto` picks with bluetoothd as Debian ships it (no `--experimental`, so
/// no monitors of its own), and bleak's stack (a dbus-fast receiver, with
/// bluetoothd as shipped). `WAYMARK_AIR_STEPS` and `WAYMARK_AIR_RECEIVERS`
/// (space-separated) narrow a run; `WAYMARK_AIR_ROUNDS` repeats it.
/// For every step and receiver: the CPU time of each process per advert the
/// controller sent, the beacon's adverts received against those sent, the
/// longest silence between two of them, the time discovery was off, memory,
/// and BlueZ's cache. A table and an SVG plot go to `.build/`.
struct AirBench {
    let quick: Bool
    /// `--air-memory-only`: memory in mgmt mode (what `auto` picks) among 10
    /// and among 1,000 devices, three rounds of each, for a difference that
    /// one sample per step cannot show: the bench's receiver (the scanner
    /// alone) and the daemon, `waymark run` with the beacon paired.
    var memory = false
    static let scripts = FileManager.default.currentDirectoryPath + "/Tests/VM"
    static let car = "C0:FF:EE:00:00:01"
    static let receivers = ["mgmt", "stock", "active", "passive", "bleak"]

    var steps: [Int] {
        Self.narrowed("WAYMARK_AIR_STEPS")?.compactMap { Int($0) } ?? (memory ? [10, 1000] : quick ? [10, 100] : [10, 100, 300, 1000])
    }
    var receivers: [String] { Self.narrowed("WAYMARK_AIR_RECEIVERS") ?? (memory ? ["mgmt", "daemon", "daemon-passive", "daemon-active"] : Self.receivers) }

    /// The words of environment variable `name`, if set and not empty.
    static func narrowed(_ name: String) -> [String]? {
        guard let value = ProcessInfo.processInfo.environment[name], !value.isEmpty else { return nil }
        return value.split(separator: " ").map(String.init)
    }
    /// `WAYMARK_AIR_ROUNDS` sets it for a quicker (or a steadier) look.
    var rounds: Int { Self.narrowed("WAYMARK_AIR_ROUNDS")?.first.flatMap { Int($0) }.map { max($0, 1) } ?? (memory ? 3 : 1) }

    /// One receiver's window at one step.
    struct Run {
        var devices: Int, receiver: String, round = 1
        var seconds = 0.0
        /// CPU seconds in the window, by process.
        var cpu: [String: Double] = [:]
        var sent = 0, carSent = 0, carHeard = 0, heard = 0
        var carGap = 0.0, discoveryOff = 0.0, enables = 0
        var rss: [String: Int] = [:]
        var cacheFiles = 0
        /// The daemon's beacon samples (it prints no sightings).
        var beaconSamples: Int?

        /// A process's memory figure (`rss-*`, in KiB) in MiB.
        func mebibytes(_ key: String) -> Double { Double(rss[key] ?? 0) / 1024 }

        /// What the stack costs: every process a receiver needs.
        var stackCPU: Double { ["receiver", "bluetoothd", "dbus-daemon"].reduce(0) { $0 + (cpu[$1] ?? 0) } }
        var advertsPerSecond: Double { seconds > 0 ? Double(sent) / seconds : 0 }
    }

    func run(into report: inout BenchReport) async throws {
        let (window, settle) = quick ? (10, 6) : (20, 8)
        let started = Date()
        let job = try TemporaryDirectory("waymark-bench-air")
        defer { unlink(job.file("waymark-bench")); unlink(job.file("waymark")) }
        let files = FileManager.default
        try files.copyItem(atPath: ScanBench.executable, toPath: job.file("waymark-bench"))
        try files.copyItem(atPath: Self.scripts + "/vm-air-cost.sh", toPath: job.file("vm-job.sh"))
        for script in ["vm-lib.sh", "vhci-crypto.sh", "vhci-air.py"] { try files.copyItem(atPath: Self.scripts + "/" + script, toPath: job.file(script)) }
        try files.copyItem(atPath: files.currentDirectoryPath + "/hardware/io.waymark.Gateway1.conf", toPath: job.file("io.waymark.Gateway1.conf"))
        chmod(job.path, 0o755)
        for devices in steps { try Self.population(devices).write(toFile: job.file("population-\(devices).json"), atomically: true, encoding: .utf8) }
        if receivers.contains(where: { $0.hasPrefix("daemon") }) { try await Self.prepareDaemon(in: job) }
        let venv = try PythonPeers.environment()
        try """
            STEPS="\(steps.map(String.init).joined(separator: " "))"
            RECEIVERS="\(receivers.joined(separator: " "))"
            ROUNDS=\(rounds)
            WINDOW=\(window)
            SETTLE=\(settle)
            DAEMON_SETTLE=35
            PYTHON=\(venv)/bin/python
            RECEIVER=\(PythonPeers.template("stack_receiver_fast.py"))

            """.write(toFile: job.file("job.env"), atomically: true, encoding: .utf8)
        let timeout = Double(rounds * steps.count * receivers.count * (window + settle + 35 + 60) + 300)
        let (console, code) = try BlueZVM.run(job: job, scripts: Self.scripts, timeout: timeout)
        guard code == "0" else {
            throw PeerError.startFailed("the busy-air VM (exit \(code ?? "none")); files in \(job.path)", output: String(console.suffix(3000)))
        }
        let runs = (1...rounds).flatMap { round in
            steps.flatMap { devices in receivers.map { Self.read(job, devices: devices, receiver: $0, round: rounds > 1 ? round : nil) } }
        }
        if memory { Self.addMemory(runs, to: &report) } else { Self.add(runs, to: &report) }
        let table = Self.table(runs)
        let (tableFile, plotFile) = memory ? (".build/bench-air-memory.txt", nil) : (".build/bench-air.txt", ".build/bench-air.svg")
        try table.write(toFile: files.currentDirectoryPath + "/" + tableFile, atomically: true, encoding: .utf8)
        if let plotFile { try Self.plot(runs).write(toFile: files.currentDirectoryPath + "/" + plotFile, atomically: true, encoding: .utf8) }
        FileHandle.standardError.write(Data((table + "\n").utf8))
        report.add("air.duration", Date().timeIntervalSince(started), unit: "s",
                   note: "the whole bench under TCG; table in \(tableFile)" + (plotFile.map { ", plot in \($0)" } ?? "") + ", VM files in \(job.path)")
    }

    /// The gateway the memory bench runs as a receiver, as the busy-air
    /// test's gateways run: logged in here (glewlwyd), the car's beacon
    /// paired by identity; in the VM, with no network, it arms from the
    /// stored session. The release build, as `waymark-bench` is.
    static func prepareDaemon(in job: TemporaryDirectory) async throws {
        let binary = try WaymarkBinary.named("waymark")
        try FileManager.default.copyItem(atPath: binary, toPath: job.file("waymark"))
        let work = try TemporaryDirectory("waymark-bench-air-login")
        defer { work.remove() }
        let provider = try Glewlwyd(directory: work)
        defer { provider.stop() }
        let backend = try IngestServer(directory: work)
        defer { backend.stop() }
        let session = try provider.waymarkConfig(backend: backend, secretFile: job.file("client-secret"))
        try session.write(toFile: work.file("login.conf"), atomically: true, encoding: .utf8)
        let arguments = ["--config", work.file("login.conf"), "--data-dir", job.file("data")]
        try Glewlwyd.logIn(binary, arguments, logPath: work.file("login.log"))
        let pair = try WaymarkBinary.run(arguments + ["pair", "--ibeacon", "e2c56db5-dffb-48d2-b060-d0f5a71096e0:100:0", "--label", "car"], in: work)
        guard pair.status == 0 else { throw PeerError.startFailed("waymark pair", output: pair.output) }
        // The VM's job installs the secret there; the receiver is a FIFO it holds open, silent.
        let config = session.replacingOccurrences(of: job.file("client-secret"), with: "/etc/waymark/client-secret")
            + "[Bluetooth]\nAdapter = hci0\n\n[Location]\nSource = nmea:///run/waymark-gps\n"
        try config.write(toFile: job.file("daemon.conf"), atomically: true, encoding: .utf8)
        try config.replacingOccurrences(of: "Adapter = hci0\n", with: "Adapter = hci0\nScanMode = active\n")
            .write(toFile: job.file("daemon-active.conf"), atomically: true, encoding: .utf8)
    }

    /// The car's beacon every 100 ms among `devices` others: a tenth each
    /// iBeacons, Ruuvi tags, BTHome sensors and Eddystone beacons; three
    /// tenths phones (rotating private addresses, scannable) and three
    /// tenths noise.
    static func population(_ devices: Int) -> String {
        let tenth = devices / 10
        let mix = ["ibeacon": tenth, "ruuvi": tenth, "bthome": tenth, "eddystone": tenth, "phone": 3 * tenth, "noise": devices - 7 * tenth]
        let generate = mix.sorted { $0.key < $1.key }.map { "\"\($0.key)\": \($0.value)" }.joined(separator: ", ")
        return """
            {"devices": [{"name": "car", "address": "\(car)", "interval_ms": 100,
                          "ibeacon": ["e2c56db5-dffb-48d2-b060-d0f5a71096e0", 100, 0], "rssi": -55}],
             "generate": {\(generate)}}
            """
    }

    static func read(_ job: TemporaryDirectory, devices: Int, receiver: String, round: Int? = nil) -> Run {
        let name = "\(devices)-\(receiver)" + (round.map { "-\($0)" } ?? "")
        func text(_ file: String) -> String { (try? String(contentsOfFile: job.file(file), encoding: .utf8)) ?? "" }
        func fields(_ file: String) -> [[Substring]] { text(file).split(separator: "\n").map { $0.split(separator: " ") } }
        func values(_ file: String) -> [String: Double] {
            Dictionary(fields(file).compactMap { $0.count == 2 ? (String($0[0]), Double($0[1]) ?? 0) : nil }) { $1 }
        }
        var run = Run(devices: devices, receiver: receiver, round: round ?? 1)
        let (before, after) = (values("before-\(name)"), values("after-\(name)"))
        guard let start = before["time"], let end = after["time"], end > start else { return run }
        run.seconds = end - start
        for process in ["receiver", "bluetoothd", "dbus-daemon", "controller", "softirq"] {
            run.cpu[process] = ((after[process] ?? 0) - (before[process] ?? 0)) / 100
        }
        run.rss = values("rss-\(name)").mapValues { Int($0) }
        run.cacheFiles = Int(text("cache-\(name)").trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        run.beaconSamples = Int(text("samples-\(name)").trimmingCharacters(in: .whitespacesAndNewlines))
        // The controller's log: `TIME sent ADDRESS NAME adv|rsp RSSI`, `TIME scan on|off dup|all`.
        // Discovery-off time is the window's time between a scan disable and the next enable.
        var scanning = false, offSince = start
        let log = fields("truth-\(name).log").filter { $0.count >= 3 }
        // Every advert of the car's, in the window or not: a sighting is of the latest before it.
        let carSent = log.compactMap { $0[1] == "sent" && $0[2] == car ? Double($0[0]) : nil }
        for line in log {
            guard let time = Double(line[0]), time < end else { continue }
            if line[1] == "scan" {
                let on = line[2] == "on"
                if on, !scanning, time > start { run.discoveryOff += time - max(offSince, start); run.enables += 1 }
                if !on, scanning { offSince = time }
                scanning = on
            } else if line[1] == "sent", time >= start {
                run.sent += 1
            }
        }
        if !scanning { run.discoveryOff += end - max(offSince, start) }
        // The receiver's: `TIME ADDRESS` per sighting (Waymark's counts the
        // unpaired per tenth of a second).
        var carTimes: [Double] = []
        for sighting in VMStackBench.Heard.read(text("heard-\(name).txt")) {
            if sighting.address == Substring(car) { carTimes.append(sighting.time) }
            if sighting.time >= start && sighting.time < end { run.heard += sighting.count }
        }
        carTimes.sort()
        run.carSent = carSent.filter { $0 >= start && $0 < end }.count
        run.carHeard = heard(carSent, in: carTimes, window: start..<end)
        let edges = [start] + carTimes.filter { $0 >= start && $0 < end } + [end]
        run.carGap = zip(edges, edges.dropFirst()).map { $1 - $0 }.max() ?? run.seconds
        return run
    }

    /// How many of the adverts sent in the window were heard. Each sighting
    /// is of the latest advert sent before it (`sent` is every one, in time
    /// order), if that was under `allowance` seconds earlier. Counting the
    /// sightings in the window instead took an advert sent near its end and
    /// heard after it (under `active`'s re-report burst, 0.98 s later) for a
    /// loss, and one sent just before it for a gain.
    static func heard(_ sent: [Double], in sightings: [Double], window: Range<Double>, allowance: Double = 2) -> Int {
        var heard = Set<Int>(), next = 0
        for time in sightings {
            while next < sent.count, sent[next] <= time { next += 1 }
            if next > 0, time - sent[next - 1] < allowance, window.contains(sent[next - 1]) { heard.insert(next - 1) }
        }
        return heard.count
    }

    static func add(_ runs: [Run], to report: inout BenchReport) {
        for run in runs where run.seconds > 0 {
            let bleak = runs.first { $0.devices == run.devices && $0.receiver == "bleak" }
            let perAdvert = { (run: Run) in run.sent > 0 ? run.stackCPU * 1000 / Double(run.sent) : 0 }
            let prefix = "air.\(run.devices).\(run.receiver)"
            report.add(prefix + ".stack_cpu_per_advert", perAdvert(run), unit: "ms",
                       baseline: run.receiver == "bleak" ? nil : bleak.map(perAdvert), baselineName: "bleak's stack",
                       note: "receiver + bluetoothd + dbus-daemon over \(run.sent) adverts sent (\(format(run.advertsPerSecond))/s)")
            report.add(prefix + ".cpu_per_second", run.stackCPU / run.seconds, unit: "s/s",
                       baseline: run.receiver == "bleak" ? nil : bleak.map { $0.stackCPU / max($0.seconds, 1) }, baselineName: "bleak's stack",
                       note: "receiver \(format(run.cpu["receiver"] ?? 0)) s, bluetoothd \(format(run.cpu["bluetoothd"] ?? 0)) s, dbus-daemon \(format(run.cpu["dbus-daemon"] ?? 0)) s, softirq \(format(run.cpu["softirq"] ?? 0)) s (the machine's), controller \(format(run.cpu["controller"] ?? 0)) s")
            report.add(prefix + ".beacon_heard", Double(run.carHeard), unit: "adverts", baseline: Double(run.carSent), baselineName: "sent",
                       note: "the car's beacon; longest gap \(format(run.carGap)) s; \(run.heard) sightings of all devices")
            report.add(prefix + ".discovery_off", run.enables > 0 ? run.discoveryOff * 1000 / Double(run.enables) : run.discoveryOff * 1000,
                       unit: "ms", note: run.enables > 0 ? "per scan enable, \(run.enables) in the window" : "in the window, no scan enable in it")
            report.add(prefix + ".rss_receiver", Double(run.rss["receiver"] ?? 0) / 1024, unit: "MiB",
                       note: "PSS \(format(run.mebibytes("receiver-Pss"))) MiB (anonymous \(format(run.mebibytes("receiver-Pss_Anon")))); bluetoothd \(format(run.mebibytes("bluetoothd"))) MiB, dbus-daemon \(format(run.mebibytes("dbus-daemon"))) MiB; \(run.cacheFiles) files in BlueZ's cache after")
        }
        for receiver in Set(runs.map(\.receiver)).sorted() {
            let points = runs.filter { $0.receiver == receiver && $0.seconds > 0 }.map { ($0.advertsPerSecond, $0.stackCPU / $0.seconds) }
            report.add("air.\(receiver).slope", slope(points) * 1000, unit: "ms/advert",
                       note: "CPU seconds per second against adverts per second, least squares over \(points.count) steps")
        }
    }

    /// Each receiver's PSS, its anonymous (heap and stacks) and file-backed
    /// parts, and its transparent huge pages (none: the bench's receiver
    /// turns them off as the daemon does), among the most devices against
    /// the fewest: the median of the rounds.
    static func addMemory(_ runs: [Run], to report: inout BenchReport) {
        let measured = runs.filter { $0.seconds > 0 }
        guard let fewest = measured.map(\.devices).min(), let most = measured.map(\.devices).max(), fewest < most else { return }
        for receiver in Set(measured.map(\.receiver)).sorted() {
            let mine = measured.filter { $0.receiver == receiver }
            func figures(_ devices: Int, _ key: String) -> [Double] { mine.filter { $0.devices == devices }.map { $0.mebibytes(key) } }
            let who = receiver.hasPrefix("daemon") ? "waymark run (\(receiver == "daemon" ? "mgmt" : receiver.dropFirst(7)))" : "the bench's \(receiver) receiver"
            for (name, key) in [("pss", "receiver-Pss"), ("pss_anonymous", "receiver-Pss_Anon"), ("pss_file", "receiver-Pss_File")] {
                let (high, low) = (figures(most, key), figures(fewest, key))
                report.add("air.memory.\(receiver).\(name)", runs: high, unit: "MiB", baselineRuns: low, baselineName: "\(fewest) devices",
                           note: "\(who) among \(most) devices, at the end of a \(format(measured[0].seconds)) s window; change "
                               + format(BenchReport.median(high) - BenchReport.median(low)) + " MiB")
            }
            let huge = mine.map { $0.mebibytes("receiver-AnonHugePages") }
            report.add("air.memory.\(receiver).anon_huge_pages", huge.max() ?? 0, unit: "MiB", note: "the most in any of the \(huge.count) windows")
        }
    }

    static func slope(_ points: [(Double, Double)]) -> Double {
        guard points.count >= 2 else { return 0 }
        let n = Double(points.count)
        let (sx, sy) = (points.reduce(0) { $0 + $1.0 }, points.reduce(0) { $0 + $1.1 })
        let sxx = points.reduce(0) { $0 + $1.0 * $1.0 }, sxy = points.reduce(0) { $0 + $1.0 * $1.1 }
        let denominator = n * sxx - sx * sx
        return denominator != 0 ? (n * sxy - sx * sy) / denominator : 0
    }

    static func table(_ runs: [Run]) -> String {
        let header = ["devices", "receiver", "adverts/s", "stack ms/advert", "receiver s", "bluetoothd s", "dbus-daemon s", "softirq s",
                      "beacon heard/sent", "gap s", "off ms/enable", "RSS rx/bluetoothd MiB", "PSS rx all/anon MiB", "cache files"]
        let rows = runs.map { run in
            [String(run.devices) + (runs.contains { $0.round > 1 } ? " #\(run.round)" : ""), run.receiver, format(run.advertsPerSecond),
             format(run.sent > 0 ? run.stackCPU * 1000 / Double(run.sent) : 0),
             format(run.cpu["receiver"] ?? 0), format(run.cpu["bluetoothd"] ?? 0), format(run.cpu["dbus-daemon"] ?? 0), format(run.cpu["softirq"] ?? 0),
             run.beaconSamples.map { "\($0) samples" } ?? "\(run.carHeard)/\(run.carSent)", run.beaconSamples == nil ? format(run.carGap) : "-", format(run.enables > 0 ? run.discoveryOff * 1000 / Double(run.enables) : 0),
             format(run.mebibytes("receiver")) + "/" + format(run.mebibytes("bluetoothd")),
             format(run.mebibytes("receiver-Pss")) + "/" + format(run.mebibytes("receiver-Pss_Anon")), String(run.cacheFiles)]
        }
        let widths = header.indices.map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
        return ([header] + rows).map { row in
            zip(row, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }.joined(separator: "  ")
        }.joined(separator: "\n")
    }

    /// CPU per second against adverts per second, one line per receiver.
    static func plot(_ runs: [Run]) -> String {
        let (width, height, margin) = (640.0, 400.0, 60.0)
        let measured = runs.filter { $0.seconds > 0 }
        let maxX = max(measured.map(\.advertsPerSecond).max() ?? 1, 1), maxY = max(measured.map { $0.stackCPU / $0.seconds }.max() ?? 1, 0.01)
        func x(_ value: Double) -> Double { margin + value / maxX * (width - 2 * margin) }
        func y(_ value: Double) -> Double { height - margin - value / maxY * (height - 2 * margin) }
        let colours = ["mgmt": "#1b9e77", "stock": "#66a61e", "active": "#d95f02", "passive": "#7570b3", "bleak": "#e7298a"]
        var svg = """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(height))" font-family="sans-serif" font-size="12">
            <rect width="100%" height="100%" fill="white"/>
            <line x1="\(margin)" y1="\(height - margin)" x2="\(width - margin)" y2="\(height - margin)" stroke="black"/>
            <line x1="\(margin)" y1="\(margin)" x2="\(margin)" y2="\(height - margin)" stroke="black"/>
            <text x="\(width / 2)" y="\(height - 20)" text-anchor="middle">adverts/s the controller sent (max \(format(maxX)))</text>
            <text x="15" y="\(height / 2)" transform="rotate(-90 15 \(height / 2))" text-anchor="middle">CPU s/s: receiver + bluetoothd + dbus-daemon (max \(format(maxY)))</text>

            """
        for (index, receiver) in Set(runs.map(\.receiver)).sorted().enumerated() {
            let points = measured.filter { $0.receiver == receiver }.sorted { $0.advertsPerSecond < $1.advertsPerSecond }
            let colour = colours[receiver] ?? "black"
            let path = points.map { "\(format(x($0.advertsPerSecond))),\(format(y($0.stackCPU / $0.seconds)))" }.joined(separator: " ")
            svg += "<polyline fill=\"none\" stroke=\"\(colour)\" stroke-width=\"2\" points=\"\(path)\"/>\n"
            for point in points {
                svg += "<circle cx=\"\(format(x(point.advertsPerSecond)))\" cy=\"\(format(y(point.stackCPU / point.seconds)))\" r=\"3\" fill=\"\(colour)\"/>\n"
            }
            svg += "<text x=\"\(width - margin - 80)\" y=\"\(margin + Double(index) * 16)\" fill=\"\(colour)\">\(receiver)</text>\n"
        }
        return svg + "</svg>\n"
    }
}

private func format(_ value: Double) -> String { BenchReport.format(value) }
