import Basics
import DBus
import Foundation
import Peers

/// One drive from start to end with no hardware: the real peers the tests
/// use; in the BlueZ mock the car's iBeacon and a RuuviTag in the cabin
/// (`DemoAir`); gpsd replaying a real drive at its own speed (`DriveLog`);
/// and `waymark run` recording and uploading; with `mqtt`, also publishing
/// to a local mosquitto, with Home Assistant discovery. Every part runs on
/// the one clock: the trip lasts as long as its drive.
final class DemoDrive: @unchecked Sendable {
    /// Seconds from writing the drive's NMEA to its first fix being played:
    /// the receiver's clock then agrees with the system's within a few seconds.
    static let lead = 6.0

    let waymark: String
    /// The drive, as a GPX track.
    let drive: String
    let output: String
    /// The trip report's HTML file.
    let report: String
    let mqtt: Bool
    let work: TemporaryDirectory
    /// Every process the demo started, stopped by PID on any exit.
    private let cast = Cast()
    private let air = DemoAir()
    private var daemonLog = LogTail(path: "")
    /// The private system bus, for every `waymark` command once it is up.
    private var environment: [String: String] = [:]

    init(waymark: String, drive: String, output: String, report: String, mqtt: Bool) throws {
        self.waymark = waymark
        self.drive = drive
        self.output = output
        self.report = report
        self.mqtt = mqtt
        work = try TemporaryDirectory("waymark-demo")
    }

    func run() async throws {
        let name = URL(fileURLWithPath: drive).lastPathComponent
        say("the peers: OIDC provider, backend, system bus with BlueZ, gpsd with \(name) (a real drive, played at its own speed)")
        let provider = try Glewlwyd(directory: work)
        cast.add("glewlwyd (OIDC provider)", provider.process)
        let backend = try IngestServer(directory: work)
        cast.add("ingest server (backend)", backend.process)
        let bluez = try await BlueZTestRig()
        cast.add("dbus-daemon (system bus)", bluez.bus.daemon)
        cast.add("python-dbusmock (BlueZ)", bluez.mock.process)
        try await bluez.addAdapter()
        environment = bluez.bus.environment
        let log = try DriveLog(gpx: drive, startingAt: Date().timeIntervalSince1970 + Self.lead, in: work)
        let gps = try GPSFake(log: log.path, directory: work, once: false)
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

        say("waymark login; the car's beacon and the RuuviTag in the cabin paired")
        try waymark(["login", "--username", Glewlwyd.username, "--password-stdin"], stdin: Glewlwyd.password + "\n")
        try waymark(["pair", "--ibeacon", DemoAir.beaconIdentity, "--role", "vehicle", "--label", "demo car"])
        try waymark(["pair", "--address", DemoAir.tagAddress, "--role", "sensor", "--label", "cabin"])

        say("waymark run")
        let daemon = try ChildProcess(waymark, arguments + ["run"], aptPackage: "(built by swift build)",
                                      environment: bluez.bus.environment, logPath: work.file("run.log"))
        cast.add("waymark run", daemon)
        daemonLog = LogTail(path: daemon.logPath)
        try await BlueZMock.waitForOwner("io.waymark.Gateway1", on: bluez.bus, process: daemon, timeout: .seconds(20))
        try waymark(["status"])

        say("the driver walks up: the car's beacon comes into range")
        try await air.start(bluez)
        defer { air.stop() }
        try await waitForDaemon("trip", "started")

        say("driving: gpsd plays \(log.fixes) s of \(name), a fix a second; the tag reports from the cabin")
        try await gps.play(every: .seconds(1), burst: log.sentencesPerFix)

        say("the driver parks and walks away: the beacon fades and goes quiet")
        air.leave()
        try await waitForFixes()
        try await waitForDaemon("trip", "ended")
        try await waitForUpload()

        say("the trip")
        let listed = try waymark(["trips"])
        let trips = try JSONSerialization.jsonObject(with: Data(try waymark(["trips", "--json"], echo: false).utf8)) as? [[String: Any]]
        guard let trip = trips?.last, let id = trip["id"] as? String else { throw DemoError.failed("no trip was recorded") }
        try waymark(["export", "--trip", id, "--format", "geojson", "--out", output, "--force"])
        try waymark(["report", "--trip", id, "--out", report, "--force"])
        let uploaded = try backend.summary()
        // The listing's times, to the millisecond (the JSON's are to the second).
        let times = listed.split(separator: "\n").first { $0.hasPrefix(id + " ") }?.split(separator: " ").dropFirst().prefix(2).map(String.init) ?? []
        let start = times.first ?? "?", end = times.count == 2 ? times[1] : "?"
        let drive = Double(log.fixes - 1)
        let lasted = CivilTime.parseISO8601(end).flatMap { end in CivilTime.parseISO8601(start).map { end - $0 } }
        Console.show("""

            trip      \(id)
            start     \(start)
            end       \(end)
            duration  \(lasted.map { String(format: "%.1f s for a drive of %.0f s (%+.0f %%)", $0, drive, ($0 / drive - 1) * 100) } ?? "?")
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

    private func writeConfig(provider: Glewlwyd, backend: IngestServer, gpsdPort: Int, broker: Mosquitto?) throws {
        try (try provider.waymarkConfig(backend: backend, secretFile: work.file("client-secret")) + """
            [Location]
            Source = gpsd://127.0.0.1:\(gpsdPort)

            [Recording]
            # A short demo: the trip ends 6 s after the beacon's last advert
            # (lost, then not back in time); every fix of the drive is kept,
            # the beacon's RSSI every second and the tag's readings every 5 s.
            BeaconLostTimeout = 3s
            ReopenWindow = 3s
            FixInterval = 0s
            BeaconInterval = 1s
            SensorInterval = 5s

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
