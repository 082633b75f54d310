import Advertisements
import BlueZ
import BluetoothKernel
import Config
import DBus
import Foundation
import Peers
import Radio
import Vocabulary

/// Issue-3 figures: adverts decoded per second per format against the PyPI
/// decoders on the same payloads; PropertiesChanged → Sighting per second
/// against a dbus-python receiver on the same burst; RSS after 10k devices.
struct ScanBench {
    var quick: Bool

    struct Format {
        var name: String
        var peer: String
        var payloads: [[UInt8]]
        var decode: ([UInt8]) -> Advertisement
    }

    func run(into report: inout BenchReport) async throws {
        let count = quick ? 20_000 : 100_000
        let directory = try TemporaryDirectory("waymark-bench-scan")
        defer { directory.remove() }
        let venv = try? PythonPeers.environment()
        for format in formats(count) {
            // Many passes, so the timed span is long enough to be stable.
            let passes = 40
            var recognised = 0
            let seconds = measure {
                for _ in 0..<passes {
                    for payload in format.payloads where format.decode(payload).isRecognised { recognised += 1 }
                }
            }
            precondition(recognised == format.payloads.count * passes, "\(format.name): \(recognised) of \(format.payloads.count * passes) decoded")
            let file = directory.file(format.name + ".hex")
            try format.payloads.map { $0.map { String(format: "%02x", $0) }.joined() }.joined(separator: "\n")
                .write(toFile: file, atomically: true, encoding: .utf8)
            let baseline = venv.flatMap { try? PythonPeers.rate(python: $0 + "/bin/python", script: "decode_peer.py", [format.name, file], in: directory) }
            report.add("decode.\(format.name)", Double(count * passes) / seconds, unit: "adverts/s", baseline: baseline,
                       baselineName: format.peer, note: baseline == nil ? "baseline unavailable: \(PythonPeers.lastProblem)" : "\(count) distinct payloads")
        }
        try await burst(into: &report)
        try await manyDevices(into: &report)
    }

    /// One format's own decode loop, without peers, for profiling.
    func decodeOnly(_ name: String, into report: inout BenchReport) {
        guard let format = formats(100_000).first(where: { $0.name == name }) else { return }
        var recognised = 0
        let seconds = measure {
            for _ in 0..<50 {
                for payload in format.payloads where format.decode(payload).isRecognised { recognised += 1 }
            }
        }
        report.add("decode.\(name)", Double(recognised) / seconds, unit: "adverts/s")
    }

    private func formats(_ count: Int) -> [Format] {
        func be16(_ v: Int) -> [UInt8] { [UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)] }
        func be32(_ v: Int) -> [UInt8] { be16(v >> 16) + be16(v) }
        let uuid = Advertisement.parseHex("e2c56db5dffb48d2b060d0f5a71096e0")!
        let mac = Advertisement.parseHex("cbb8334c884f")!
        // Each payload written as a typed function: Swift 6.0's type checker
        // gives up on these sums inside one literal.
        func ibeacon(_ i: Int) -> [UInt8] { [0x02, 0x15] + uuid + be16(i) + be16(i &* 7) + [0xC5] }
        func ruuvi(_ i: Int) -> [UInt8] {
            let fields: [[UInt8]] = [[0x05], be16(i % 30000), be16(20000), be16(50000), [0x00, 0x04, 0xFF, 0xFC, 0x04, 0x0C, 0xAC, 0x36, 0x42, 0x00, 0xCD], mac]
            return Array(fields.joined())
        }
        func bthome(_ i: Int) -> [UInt8] { [0x40, 0x00, UInt8(i & 0xFF), 0x02, UInt8(i & 0xFF), UInt8((i >> 8) & 0x7F), 0x03, 0xBF, 0x13] }
        func tlm(_ i: Int) -> [UInt8] { [0x20, 0x00] + be16(3000) + be16((i * 16) & 0x7FFF) + be32(i) + be32(i * 10) }
        return [
            Format(name: "ibeacon", peer: "ibeacon-ble", payloads: (0..<count).map(ibeacon)) {
                AdvertisementDecoder.decode(companyID: 0x004C, $0)
            },
            Format(name: "ruuvi", peer: "ruuvitag-ble", payloads: (0..<count).map(ruuvi)) { AdvertisementDecoder.decode(companyID: 0x0499, $0) },
            Format(name: "bthome", peer: "bthome-ble", payloads: (0..<count).map(bthome)) {
                AdvertisementDecoder.decode(serviceUUID: "0000fcd2-0000-1000-8000-00805f9b34fb", $0)
            },
            Format(name: "eddystone-tlm", peer: "beacontools", payloads: (0..<count).map(tlm)) {
                AdvertisementDecoder.decode(serviceUUID: "0000feaa-0000-1000-8000-00805f9b34fb", $0)
            },
        ]
    }

    /// Each receiver in turn, alone on the bus, is stopped (SIGSTOP) while the
    /// mock emits the same burst, then let go to drain it as fast as it can.
    /// One at a time, so that none competes with another for the two cores
    /// that dbus-daemon also needs. Five runs, interleaved, so that a slow
    /// moment of the machine falls on every receiver alike.
    ///
    /// Receivers: Waymark's scanner on D-Bus (active mode); dbus-fast, as
    /// bleak receives; dbus-python; and Waymark's scanner in mgmt mode, fed
    /// the same number of device-found events through a socket, as the
    /// kernel's management channel would deliver them.
    func burst(into report: inout BenchReport) async throws {
        let count = quick ? 5_000 : 50_000
        let runs = quick ? 1 : 5
        let rig = try await BlueZTestRig()
        defer { rig.stop() }
        try await rig.addAdapter()
        try await rig.addDevice("C0:FF:EE:00:00:01")
        let device = "/org/bluez/hci0/dev_C0_FF_EE_00_00_01"
        func drain(_ executable: String, _ arguments: [String], _ name: String) async throws -> (wall: Double, cpu: Double) {
            let receiver = try ChildProcess(executable, arguments + [rig.bus.address, device, String(count)],
                                            aptPackage: "python3-dbus", logPath: rig.bus.directory.file("\(name).log"))
            defer { receiver.stop() }
            try await waitFor("ready", in: receiver)
            receiver.kill(SIGSTOP)
            try await rig.mock.control(rig.connection, interface: "io.waymark.BlueZMock", "EmitBurst", [.objectPath(device), .uint32(UInt32(count))])
            receiver.kill(SIGCONT)
            return try Self.rates(receiver, name)
        }
        let this = Self.executable
        let fast = (try? PythonPeers.environment()).map { $0 + "/bin/python" }
        var ours: [(wall: Double, cpu: Double)] = [], fastRuns = ours, python = ours, management = ours, libdbus = ours, sdbus = ours
        for _ in 0..<runs {
            ours.append(try await drain(this, ["--receive-burst"], "ours"))
            if let fast { fastRuns.append(try await drain(fast, [PythonPeers.template("burst_receiver_fast.py")], "dbus-fast")) }
            python.append(try await drain("/usr/bin/python3", [PythonPeers.template("burst_receiver.py")], "python"))
            management.append(try await drainManagement(rig, count: count))
            libdbus.append(try await drain(this, ["--receive-floor-burst", "libdbus"], "libdbus-floor"))
            sdbus.append(try await drain(this, ["--receive-floor-burst", "sd-bus"], "sd-bus-floor"))
        }
        let fastName = fast == nil ? nil : "dbus-fast 5.2 (bleak)"
        let fastNote = fast == nil ? "; dbus-fast unavailable: \(PythonPeers.lastProblem)" : ""
        // CPU time is what each receiver costs; the wall clock includes dbus-daemon.
        report.add("scan.dbus_sightings_per_cpu_s", runs: ours.map(\.cpu), unit: "sightings/CPU-s",
                   baselineRuns: fastRuns.map(\.cpu), baselineName: fastName,
                   note: "\(count) queued PropertiesChanged → Sighting, active mode" + fastNote)
        report.add("scan.dbus_vs_libdbus_floor", runs: ours.map(\.cpu), unit: "sightings/CPU-s",
                   baselineRuns: libdbus.map(\.cpu), baselineName: "libdbus C floor",
                   note: "the same runs against a minimal C receiver on libdbus (Benchmarks/DBusFloor): what our layers above libdbus cost")
        report.add("scan.libdbus_floor", runs: libdbus.map(\.cpu), unit: "signals/CPU-s",
                   baselineRuns: fastRuns.map(\.cpu), baselineName: fastName,
                   note: "a minimal C receiver on libdbus: poll, pop each message, read RSSI and ManufacturerData with its iterators" + fastNote)
        report.add("scan.sdbus_floor", runs: sdbus.map(\.cpu), unit: "signals/CPU-s",
                   baselineRuns: fastRuns.map(\.cpu), baselineName: fastName,
                   note: "the same receiver on sd-bus (libsystemd 252): two recvmsg calls per message" + fastNote)
        report.add("scan.dbus_vs_dbus_python", runs: ours.map(\.cpu), unit: "sightings/CPU-s",
                   baselineRuns: python.map(\.cpu), baselineName: "dbus-python receiver", note: "the same runs against the weaker peer")
        if !fastRuns.isEmpty {
            report.add("scan.dbus_fast_vs_dbus_python", runs: fastRuns.map(\.cpu), unit: "sightings/CPU-s",
                       baselineRuns: python.map(\.cpu), baselineName: "dbus-python receiver", note: "the two peers side by side")
        }
        report.add("scan.default_path_per_cpu_s", runs: management.map(\.cpu), unit: "sightings/CPU-s",
                   baselineRuns: fastRuns.map(\.cpu), baselineName: fastName,
                   note: "auto picks mgmt: \(count) device-found events through a seqpacket socket → Sighting; "
                       + "a ratio of 2 or more is at most half dbus-fast's CPU per advert" + fastNote)
        report.add("scan.dbus_sightings_from_burst", runs: ours.map(\.wall), unit: "sightings/s",
                   baselineRuns: fastRuns.map(\.wall), baselineName: fastName,
                   note: "wall clock, each receiver alone, paused during the burst; dbus-daemon bounds all")
    }

    static var executable: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }

    /// The last line of a burst receiver: `WALL_RATE CPU_RATE`.
    static func rates(_ receiver: ChildProcess, _ name: String) throws -> (wall: Double, cpu: Double) {
        let status = try receiver.wait(timeout: 300)
        let fields = (receiver.output.split(separator: "\n").last ?? "").split(separator: " ").compactMap { Double($0) }
        guard status == 0, fields.count == 2 else { throw PeerError.startFailed("burst receiver \(name)", output: receiver.output) }
        return (fields[0], fields[1])
    }

    /// The mgmt receiver: a child scanner listening on a seqpacket socket.
    /// Stopped, as the D-Bus receivers are, while this process queues
    /// `count` device-found events into it, then let go to drain them.
    private func drainManagement(_ rig: BlueZTestRig, count: Int) async throws -> (wall: Double, cpu: Double) {
        let socketPath = rig.bus.directory.file("mgmt.sock")
        unlink(socketPath)
        let receiver = try ChildProcess(Self.executable, ["--receive-mgmt-burst", rig.bus.address, socketPath, String(count)],
                                        aptPackage: "(built by swift build)", logPath: rig.bus.directory.file("mgmt.log"))
        defer { receiver.stop() }
        try await waitFor("ready", in: receiver)
        let socket = try ManagementReplay.connect(to: socketPath)
        defer { close(socket) }
        // Events before the scanner follows its adapter would be dropped.
        try await waitFor("started", in: receiver)
        let events = ManagementReplay.burst(count: count)
        receiver.kill(SIGSTOP)
        try ManagementReplay.send(events, on: socket)
        receiver.kill(SIGCONT)
        return try Self.rates(receiver, "mgmt")
    }

    private func waitFor(_ text: String, in process: ChildProcess) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while !process.output.contains(text) {
            guard ContinuousClock.now < deadline, process.isRunning else { throw PeerError.startFailed(process.program, output: process.output) }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// RSS of `waymark scan` after 10k, then 30k, distinct devices: the
    /// shipped binary, printing a line per sighting. Its device table is
    /// bounded, so the second figure stays near the first.
    func manyDevices(into report: inout BenchReport) async throws {
        let rig = try await BlueZTestRig()
        defer { rig.stop() }
        try await rig.addAdapter()
        let work = try TemporaryDirectory("waymark-bench-scan")
        defer { work.remove() }
        let scan = try ChildProcess(try WaymarkBinary.named("waymark"), ["--data-dir", work.file("data"), "scan", "--json", "--duration", "300"],
                                    aptPackage: "(built by swift build)", environment: rig.bus.environment, logPath: work.file("scan.log"))
        defer { scan.stop() }
        try await waitFor("scanning", in: scan)
        var total = 0
        for batch in [10_000, 20_000] {
            try await rig.mock.control(rig.connection, interface: "io.waymark.BlueZMock", "EmitDeviceBurst", [.string("hci0"), .uint32(UInt32(batch))])
            total += batch
            let deadline = ContinuousClock.now + .seconds(60)
            // A live view may drop sightings it cannot print in time: wait
            // until the lines stop coming, and say how many came.
            var printed = 0, previous = -1
            while printed != previous || printed < total * 9 / 10 {
                guard ContinuousClock.now < deadline, scan.isRunning else {
                    throw PeerError.startFailed("waymark scan", output: "\(printed) of \(total) sightings printed; \(scan.output.split(separator: "\n").filter { $0.first != "{" })")
                }
                try await Task.sleep(for: .seconds(1))
                previous = printed
                printed = scan.output.split(separator: "\n").count(where: { $0.first == "{" })
            }
            report.add("scan.rss_after_\(total / 1000)k_devices", ResourceUsage.residentMegabytes(of: scan.pid), unit: "MiB",
                       note: "`waymark scan --json` after \(total) distinct devices, \(printed) lines printed (device table bound \(Configuration().bluetooth.scannerOptions(cycle: .seconds(5)).maxDevices))")
        }
    }

    /// The receiving side of the burst figure, run as a child process. It
    /// takes sightings through the scanner's synchronous handler, the way the
    /// recorder does.
    static func receiveBurst(address: String, device: String, count: Int) async throws {
        var options = Configuration().bluetooth.scannerOptions(cycle: .seconds(5))
        options.mode = .active
        try await receive(address: address, count: count, options: options) { print("ready"); fflush(nil) }
    }

    /// The receiving side of the mgmt figure: accepts one connection on a
    /// seqpacket socket at `socketPath` and reads it as the management channel.
    static func receiveManagementBurst(address: String, socketPath: String, count: Int) async throws {
        let listener = try ManagementReplay.listen(at: socketPath)
        print("ready")
        fflush(nil)
        let connection = try ManagementReplay.accept(listener)
        var options = Configuration().bluetooth.scannerOptions(cycle: .seconds(5))
        options.mode = .mgmt
        options.managementChannel = { ManagementSocket(adopting: connection) }
        try await receive(address: address, count: count, options: options) { print("started"); fflush(nil) }
    }

    private static func receive(address: String, count: Int, options: ScannerOptions, started: () -> Void) async throws {
        let connection = try await DBusConnection.connect(address: address)
        let (done, finished) = AsyncStream.makeStream(of: String.self)
        let counter = BurstCounter(count: count, report: finished)
        let scanner = BlueZScanner(connection: connection, options: options, clock: ContinuousClock()) { sighting in
            if sighting.manufacturerData[0xFFFF] != nil { counter.add() }
            return true
        }
        try await scanner.start()
        let loops = Task { await scanner.run() }
        started()
        for await line in done {
            print(line)
            break
        }
        loops.cancel()
    }
}

/// Counts sightings on the D-Bus connection's loop (or the management
/// channel's queue) and reports the rates once all arrived.
final class BurstCounter: @unchecked Sendable {
    // Touched only from the scanner's handler, which runs on one thread at a time.
    private var received = 0
    private var first = ContinuousClock.now
    private var cpuAtFirst = 0.0
    private let count: Int
    private let report: AsyncStream<String>.Continuation

    init(count: Int, report: AsyncStream<String>.Continuation) {
        self.count = count
        self.report = report
    }

    func add() {
        received += 1
        if received == 1 {
            first = .now
            cpuAtFirst = ResourceUsage.cpuSeconds
        }
        guard received == count else { return }
        let cpu = ResourceUsage.cpuSeconds - cpuAtFirst
        let wall = seconds(ContinuousClock.now - first)
        report.yield("\(Double(count - 1) / wall) \(Double(count - 1) / cpu)")
    }
}

extension Advertisement {
    var isRecognised: Bool {
        if case .unknown = self { return false }
        return true
    }
}
