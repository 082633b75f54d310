import DBus
import Foundation
import Peers

/// One drive from start to end with no hardware: the real peers the tests
/// use, a vehicle iBeacon advertising in the BlueZ mock, gpsd replaying a
/// receiver log from a car, and `waymark run` recording and uploading; with
/// `mqtt`, also publishing to a local mosquitto, with Home Assistant discovery.
final class DemoDrive: @unchecked Sendable {
    static let beaconAddress = "C0:FF:EE:00:00:01"
    static let beaconIdentity = "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0:100:0"
    static let ibeacon: [UInt8] = [
        0x02, 0x15, 0xE2, 0xC5, 0x6D, 0xB5, 0xDF, 0xFB, 0x48, 0xD2, 0xB0, 0x60, 0xD0, 0xF5, 0xA7, 0x10, 0x96, 0xE0,
        0x00, 0x64, 0x00, 0x00, 0xC5,
    ]

    let waymark: String
    let log: String
    let output: String
    /// The trip report's HTML file.
    let report: String
    let mqtt: Bool
    let work: TemporaryDirectory
    /// Every process the demo started, stopped by PID on any exit.
    private let cast = Cast()
    private var daemonLog = LogTail(path: "")
    /// The private system bus, for every `waymark` command once it is up.
    private var environment: [String: String] = [:]

    init(waymark: String, log: String, output: String, report: String, mqtt: Bool) throws {
        self.waymark = waymark
        self.log = log
        self.output = output
        self.report = report
        self.mqtt = mqtt
        work = try TemporaryDirectory("waymark-demo")
    }

    func run() async throws {
        say("the peers: OIDC provider, backend, system bus with BlueZ, gpsd replaying \(URL(fileURLWithPath: log).lastPathComponent) (moved to end now)")
        let provider = try Glewlwyd(directory: work)
        cast.add("glewlwyd (OIDC provider)", provider.process)
        let backend = try IngestServer(directory: work)
        cast.add("ingest server (backend)", backend.process)
        let bluez = try await BlueZTestRig()
        cast.add("dbus-daemon (system bus)", bluez.bus.daemon)
        cast.add("python-dbusmock (BlueZ)", bluez.mock.process)
        try await bluez.addAdapter()
        environment = bluez.bus.environment
        let recent = work.file("recent-" + URL(fileURLWithPath: log).lastPathComponent)
        try RecentLog(try String(contentsOfFile: log, encoding: .utf8), endingAt: Date().timeIntervalSince1970).text
            .write(toFile: recent, atomically: false, encoding: .utf8)
        let gps = try GPSFake(log: recent, directory: work, once: false)
        cast.add("gpsfake and gpsd", gps.process)
        var broker: Mosquitto?
        var subscriber: ChildProcess?
        if mqtt {
            let started = try Mosquitto(directory: work)
            cast.add("mosquitto (MQTT broker)", started.process)
            subscriber = try started.subscriber(["waymark/#", "homeassistant/#"], id: "demo-subscriber")
            cast.add("mosquitto_sub", subscriber!)
            broker = started
        }
        try writeConfig(provider: provider, backend: backend, gpsdPort: gps.port, broker: broker)

        say("waymark login, and the car's beacon paired by its iBeacon identity")
        try waymark(["login", "--username", Glewlwyd.username, "--password-stdin"], stdin: Glewlwyd.password + "\n")
        try waymark(["pair", "--ibeacon", Self.beaconIdentity, "--role", "vehicle", "--label", "demo car"])

        say("waymark run")
        let daemon = try ChildProcess(waymark, arguments + ["run"], aptPackage: "(built by swift build)",
                                      environment: bluez.bus.environment, logPath: work.file("run.log"))
        cast.add("waymark run", daemon)
        daemonLog = LogTail(path: daemon.logPath)
        try await BlueZMock.waitForOwner("io.waymark.Gateway1", on: bluez.bus, process: daemon, timeout: .seconds(20))
        try waymark(["status"])

        say("the driver gets in: the beacon advertises")
        try await bluez.addDevice(Self.beaconAddress, manufacturer: [Self.manufacturerData], rssi: -50)
        let beacon = Task {
            while !Task.isCancelled {
                try? await bluez.advertise(Self.beaconAddress, manufacturer: [Self.manufacturerData], rssi: -52)
                try? await Task.sleep(for: .milliseconds(300))
            }
        }
        defer { beacon.cancel() }
        try await waitForDaemon("trip", "started")

        say("driving: gpsd plays the log's fixes")
        try await gps.play(every: .milliseconds(80))
        try await waitForFixes()

        say("the driver leaves: the beacon goes quiet")
        beacon.cancel()
        try await waitForDaemon("trip", "ended")
        try await waitForUpload()

        say("the trip")
        try waymark(["trips"])
        let trips = try JSONSerialization.jsonObject(with: Data(try waymark(["trips", "--json"], echo: false).utf8)) as? [[String: Any]]
        guard let trip = trips?.last, let id = trip["id"] as? String else { throw DemoError.failed("no trip was recorded") }
        try waymark(["export", "--trip", id, "--format", "geojson", "--out", output, "--force"])
        try waymark(["report", "--trip", id, "--out", report, "--force"])
        let uploaded = try backend.summary()
        Console.show("""

            trip      \(id)
            start     \(trip["start"] as? String ?? "?")
            end       \(trip["end"] as? String ?? "?")
            distance  \(String(format: "%.2f km", (trip["distance_meters"] as? Double ?? 0) / 1000)) over \(trip["points"] as? Int ?? 0) fixes
            uploaded  \(uploaded.stored) samples (\(uploaded.kinds.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", "))), \
            \(uploaded.duplicates) duplicates
            GeoJSON   \(output)
            report    \(report)
            """)
        if let subscriber {
            try await Task.sleep(for: .seconds(1))
            var byTopic: [String: Int] = [:]
            for line in subscriber.output.split(separator: "\n") {
                let topic = line.split(separator: " ", maxSplits: 1).first.map(String.init) ?? ""
                let parts = topic.split(separator: "/")
                let key = topic.hasPrefix("homeassistant/") && parts.count > 2 ? "homeassistant/\(parts[1]) configs" : parts.dropFirst(2).joined(separator: "/")
                byTopic[key, default: 0] += 1
            }
            Console.show("    MQTT      " + byTopic.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", "))
        }
    }

    /// Stops everything and checks that none of it is left.
    func cleanUp(keepLogs: Bool) -> [String] {
        let left = cast.stopAll()
        if left.isEmpty && !keepLogs { work.remove() }
        return left
    }

    private var arguments: [String] { ["--config", work.file("waymark.conf"), "--data-dir", work.file("data")] }

    private static var manufacturerData: DBusDictEntry { DBusDictEntry(.uint16(0x004C), .variant(.bytes(ibeacon))) }

    private func writeConfig(provider: Glewlwyd, backend: IngestServer, gpsdPort: Int, broker: Mosquitto?) throws {
        try (try provider.waymarkConfig(backend: backend, secretFile: work.file("client-secret")) + """
            [Location]
            Source = gpsd://127.0.0.1:\(gpsdPort)

            [Recording]
            # A short demo: the trip ends 6 s after the beacon's last advert
            # (lost, then not back in time), and every fix of the log is kept.
            BeaconLostTimeout = 3s
            ReopenWindow = 3s
            FixInterval = 0s

            """ + (broker.map { broker in """

            [Upload]
            Sinks = http, mqtt

            [MQTT]
            Broker = mqtt://127.0.0.1:\(broker.port)
            Username = \(broker.username)
            PasswordFile = \(broker.passwordFile)

            """ } ?? "")).write(toFile: work.file("waymark.conf"), atomically: true, encoding: .utf8)
    }

    /// Runs one `waymark` command to completion and shows what it printed.
    @discardableResult
    private func waymark(_ command: [String], stdin: String? = nil, echo: Bool = true) throws -> String {
        let input = stdin.map { _ in Pipe() }
        let process = try ChildProcess(waymark, arguments + command, aptPackage: "(built by swift build)", environment: environment,
                                       logPath: work.file("waymark-\(command[0])-\(UUID().uuidString.prefix(6)).log"), stdin: input)
        if let stdin, let input { ChildProcess.feed(input, Data(stdin.utf8)) }
        let status = try process.wait(timeout: 60)
        let text = process.output
        if echo {
            Console.show("$ waymark \(command.joined(separator: " "))")
            Console.show(text.split(separator: "\n", omittingEmptySubsequences: false).map { "  " + $0 }.joined(separator: "\n"))
        }
        guard status == 0 else { throw DemoError.failed("waymark \(command[0]) exited \(status)") }
        return text
    }

    private func echoDaemon() {
        for line in daemonLog.newLines() where line.contains("recording:") || line.contains("upload") {
            Console.show("  daemon: \(line)")
        }
    }

    private func waitForDaemon(_ words: String...) async throws {
        for _ in 0..<600 {
            let lines = daemonLog.newLines()
            for line in lines where line.contains("recording:") || line.contains("upload") { Console.show("  daemon: \(line)") }
            if lines.contains(where: { line in words.allSatisfy { line.contains($0) } }) { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw DemoError.failed("the daemon never said \(words.joined(separator: " ")); its log is \(daemonLog.path)")
    }

    private func waitForUpload() async throws {
        for _ in 0..<300 {
            let queue = try waymark(["queue", "--json"], echo: false)
            if let json = try JSONSerialization.jsonObject(with: Data(queue.utf8)) as? [String: Any], json["depth"] as? Int == 0 {
                echoDaemon()
                return
            }
            try await Task.sleep(for: .milliseconds(200))
        }
        throw DemoError.failed("the outbox never emptied")
    }

    /// Waits until the fixes gpsd sent are all in the trip: its track stops
    /// growing.
    private func waitForFixes() async throws {
        var points = -1
        for _ in 0..<60 {
            echoDaemon()
            let trips = try JSONSerialization.jsonObject(with: Data(try waymark(["trips", "--json"], echo: false).utf8)) as? [[String: Any]]
            let now = trips?.last?["points"] as? Int ?? 0
            if now == points, now > 0 {
                Console.show("  \(now) positions recorded")
                return
            }
            points = now
            try await Task.sleep(for: .milliseconds(500))
        }
        throw DemoError.failed("the trip's track never settled: \(points) positions")
    }

    private func say(_ text: String) {
        Console.show(isatty(1) == 1 ? "\n\u{1B}[1m== \(text)\u{1B}[0m" : "\n== \(text)")
    }
}
