import Basics
import Capture
import Foundation
import PeerHarness
import Radio
import Testing
import Vocabulary

/// The arm64 package on a virtual Pi, as a user installs and runs it: QEMU's
/// `virt` machine boots trixie's arm64 kernel with systemd as PID 1
/// (Tests/Pi), with bluetoothd as the image ships it (no `--experimental`)
/// and busy air's virtual controller (Tests/VM/vhci-air.py) as its radio,
/// and gpsd on a virtio serial port. glewlwyd and the ingest run here, reached through
/// QEMU's forwarding only. `make test-pi` makes the package and the image
/// and passes their paths in WAYMARK_PI_DEB and WAYMARK_PI_IMAGE.
struct VirtualPiTests {
    static let advert = "1aff4c00" + "0215e2c56db5dffb48d2b060d0f5a71096e000640000c5"
    static let identity = "ibeacon:e2c56db5-dffb-48d2-b060-d0f5a71096e0:100:0"
    static let car = "C0:FF:EE:00:00:01"
    /// The car's beacon every 300 ms, the strongest in the air (so that
    /// `pair --strongest` takes it), among 20 neighbours of every kind
    /// advertising every 1 to 3 s: about 11 adverts a second.
    static let population = """
        {"devices": [{"name": "car", "address": "\(car)", "interval_ms": 300, "data": "020106\(advert)", "rssi": -45, "leaves": true}],
         "generate": {"ibeacon": 2, "ruuvi": 2, "bthome": 2, "eddystone": 2, "phone": 6, "noise": 6},
         "intervals_s": [1.0, 3.0]}
        """

    @Test func thePackageInstallsArmsRecordsSurvivesAPowerCutUpgradesAndPurgesClean() async throws {
        let environment = ProcessInfo.processInfo.environment
        let package = try #require(environment["WAYMARK_PI_DEB"], "no arm64 package: run make test-pi, which makes it")
        let image = try #require(environment["WAYMARK_PI_IMAGE"], "no virtual Pi image: run make test-pi, which makes it")
        let job = try TemporaryDirectory("waymark-pi")
        chmod(job.path, 0o755)
        let provider = try Glewlwyd(directory: job)
        let backend = try IngestServer(directory: job)
        defer {
            provider.stop()
            backend.stop()
        }

        // The package, and one with a higher version from the same files for the upgrade.
        let name = (package as NSString).lastPathComponent
        try FileManager.default.copyItem(atPath: package, toPath: job.file(name))
        let next = try Self.repackage(job.file(name), in: job)
        // The logs stay (in /tmp) for a look after a failure; the disk and the packages go.
        defer { [name, next, "disk.qcow2"].forEach { unlink(job.file($0)) } }
        let config = try provider.waymarkConfig(backend: backend, secretFile: job.file("client-secret"))
            .replacingOccurrences(of: job.file("client-secret"), with: "/etc/waymark/client-secret")
        // [Bluetooth] as shipped: the first adapter, ScanMode auto. The
        // capture is what the daemon heard, advert by advert.
        try (config + """

            [Recording]
            BeaconLostTimeout = 30s
            ReopenWindow = 5s
            Capture = /var/lib/waymark/capture

            """).write(toFile: job.file("waymark.conf"), atomically: true, encoding: .utf8)
        try Self.population.write(toFile: job.file("population.json"), atomically: true, encoding: .utf8)
        let issuerPort = try #require(URLComponents(string: provider.issuer)?.port)
        let ingestPort = try #require(URLComponents(string: backend.baseURL)?.port)
        try """
            DEB=\(name)
            DEB_NEXT=\(next)
            OIDC_PORT=\(issuerPort)
            INGEST_PORT=\(ingestPort)
            USERNAME=\(Glewlwyd.username)
            PASSWORD=\(Glewlwyd.password)

            """.write(toFile: job.file("job.env"), atomically: true, encoding: .utf8)
        for script in ["Pi/pi-job.sh", "VM/vhci-crypto.sh", "VM/vhci-air.py"] {
            try FileManager.default.copyItem(atPath: Checkout.path("Tests/" + script), toPath: job.file((script as NSString).lastPathComponent))
        }

        let pi = try VirtualPi(image: image, job: job, forwards: [issuerPort, ingestPort])
        // Boot 1: everything up to the power cut, at a random moment after the job asks for it.
        try "1".write(toFile: job.file("boot"), atomically: true, encoding: .utf8)
        let first = try pi.boot(1, until: ["WAYMARK-PI-CUT", "WAYMARK-PI-DONE"], timeout: 1800)
        let seed = UInt64(Date().timeIntervalSince1970 * 1000)
        var random = SplitMix64(seed: seed)
        let delay = Double(random.next() % 3000) / 1000
        print("virtual Pi: power cut \(delay) s after the job asked (seed \(seed))")
        try #require(first.marker == "WAYMARK-PI-CUT", "boot 1 failed (\(Self.text(job, "exit-code-1"))); files in \(job.path):\n\(pi.console(1).suffix(6000))")
        try await Task.sleep(for: .milliseconds(Int(delay * 1000)))
        first.machine.kill(SIGKILL)
        _ = try first.machine.wait(timeout: 30)
        let queuedBeforeCut = try Self.json(job, "queue-before-cut.json")["depth"] as? Int ?? 0
        let storedBeforeCut = try backend.summary().stored

        // Boot 2: armed by itself, flushed, upgraded, purged.
        try "2".write(toFile: job.file("boot"), atomically: true, encoding: .utf8)
        let second = try pi.boot(2, until: ["WAYMARK-PI-DONE"], timeout: 1800)
        _ = try? second.machine.wait(timeout: 60)
        try #require(Self.text(job, "exit-code-2") == "0", "boot 2 failed (\(Self.text(job, "exit-code-2"))); files in \(job.path):\n\(pi.console(2).suffix(6000))")

        #expect(!FileManager.default.fileExists(atPath: job.file("no-air")),
                "no air on the virtual Pi: Debian's arm64 kernel has no hci_vhci (CONFIG_BT_HCIVHCI is not set): \(Self.text(job, "no-air"))")
        // 1. The package installed and enabled the unit, which waited for a backend.
        #expect(Self.text(job, "enabled.txt") == "enabled")
        // man waymark and man waymark.conf, from the package.
        #expect(Self.text(job, "man-waymark.txt").contains("WAYMARK(1)"), "\(Self.text(job, "man-waymark.txt").prefix(500))")
        let configPage = Self.text(job, "man-waymark.conf.txt")
        #expect(configPage.contains("WAYMARK.CONF(5)") && configPage.contains("BeaconLostTimeout"), "\(configPage.prefix(500))")
        #expect(Self.text(job, "status-unconfigured.txt").contains("no backend yet: set [Session] Issuer and [Backend] BaseURL"),
                "\(Self.text(job, "status-unconfigured.txt"))")
        // 2, 3. Logged in and paired as user waymark; one trip, uploaded.
        #expect(Self.text(job, "pair.log").contains(Self.identity), "\(Self.text(job, "pair.log"))")
        #expect(Self.text(job, "pair-sensor.log").contains("paired sensor #2: address:C0:FF:EE:00:00:09 (tag)"), "\(Self.text(job, "pair-sensor.log"))")
        let trips = try #require(try JSONSerialization.jsonObject(with: Data(Self.text(job, "trips-1.json").utf8)) as? [[String: Any]])
        #expect(trips.count == 1 && trips.first?["end"] is String, "\(trips)")
        // 4. Armed again after a restart, with no login.
        let daemon1 = Self.text(job, "daemon-1.log")
        #expect(daemon1.components(separatedBy: "recording: running").count - 1 >= 2, "\(daemon1.suffix(3000))")
        // 5. After the power cut: armed by itself, and what was pending reached the ingest.
        #expect(queuedBeforeCut > 0)
        let after = try backend.summary()
        #expect(after.stored >= storedBeforeCut + queuedBeforeCut, "before the cut \(storedBeforeCut) stored and \(queuedBeforeCut) queued; after \(after.stored)")
        #expect(!Self.text(job, "daemon-2.log").contains("login"), "no login after the cut")
        // 6. The upgrade kept the session, the pairing and the trips, and the service runs.
        #expect(Self.text(job, "version-after-upgrade.txt") == (next as NSString).deletingPathExtension.split(separator: "_")[1].description)
        #expect(try Self.json(job, "whoami-3.json")["authorized"] as? Bool == true)
        #expect(Self.text(job, "beacons-3.json").contains(Self.identity))
        let tripsAfterUpgrade = try JSONSerialization.jsonObject(with: Data(Self.text(job, "trips-3.json").utf8)) as? [[String: Any]] ?? []
        #expect(tripsAfterUpgrade.count >= 2, "\(tripsAfterUpgrade)")
        // The downgrade back, as a rollback: the same session, pairing and trips.
        #expect(Self.text(job, "version-after-downgrade.txt") == name.split(separator: "_")[1].description)
        #expect(try Self.json(job, "whoami-4.json")["authorized"] as? Bool == true)
        #expect(Self.text(job, "beacons-4.json").contains(Self.identity))
        let tripsAfterDowngrade = try JSONSerialization.jsonObject(with: Data(Self.text(job, "trips-4.json").utf8)) as? [[String: Any]] ?? []
        #expect(tripsAfterDowngrade.count >= tripsAfterUpgrade.count, "\(tripsAfterDowngrade)")
        // The fleet's boot check after the rollback: healthy.
        #expect(Self.text(job, "health-exit.txt") == "0", "\(Self.text(job, "health.txt"))")
        // 7. doctor: every check passes (a warning is printed, not failed on).
        let doctor = Self.text(job, "doctor.txt")
        print("virtual Pi: doctor's lines that are not ok:\n" + doctor.split(separator: "\n").filter { $0.hasPrefix("FAIL") || $0.hasPrefix("warn") }.joined(separator: "\n"))
        #expect(Self.text(job, "doctor-exit.txt") == "0" && !doctor.contains("FAIL"), "\(doctor)")
        // bluetoothd as shipped, and nothing to add to it: the daemon scans under its own kernel monitor.
        let lines = doctor.split(separator: "\n")
        #expect(!lines.contains { $0.hasPrefix("warn") && $0.contains("experimental") }, "\(doctor)")
        #expect(lines.contains { $0.contains("scan-mode: mgmt:") && $0.contains("added to the kernel") && $0.contains("the running daemon's") }, "\(doctor)")
        // 8. A purge leaves no file behind.
        let before = Set(Self.text(job, "files-before.txt").split(separator: "\n"))
        let left = Self.text(job, "files-after.txt").split(separator: "\n").filter { !before.contains($0) }
        #expect(left.isEmpty, "left after apt purge: \(left)")

        // 9. The air: what the daemon heard of the car's beacon against what the controller sent.
        try checkReception(job)

        let memory = { (name: String) in
            Self.text(job, name).split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true) }
                .map { "\($0[0]) \(String(format: "%.1f", (Double($0[1]) ?? 0) / 1024)) MiB" }.joined(separator: ", ")
        }
        print("virtual Pi: the daemon while recording: \(memory("memory-boot-2.txt")) (boot 2, the config as shipped but for the server and timeouts); "
              + "with a capture: \(memory("memory.txt")) as the trip started, \(memory("memory-after.txt")) three minutes on; "
              + "launch → armed under systemd \(Self.text(job, "launch-to-armed.txt")) s; boot → armed \(Self.text(job, "boot-to-armed.txt")) s")
        print("virtual Pi: the daemon's proportional set by mapping while recording, boot 2 (KiB):\n" + Self.pssByMapping(Self.text(job, "smaps-boot-2.txt")))
    }

    /// The daemon (mgmt mode under its own kernel monitor) hears at least
    /// 95 % of the car's beacon's adverts, with no silence over 2 s; with
    /// `scan` beside it, through the daemon, within 2 % of that. `scan
    /// --radio`, a discovery of its own beside the daemon, is measured and printed.
    func checkReception(_ job: TemporaryDirectory) throws {
        let log = Self.text(job, "daemon-1.log")
        #expect(log.contains("recording: scanning in mgmt mode") && log.contains("added to the kernel"), "\(log.suffix(3000))")
        let heard = try Self.heard(Self.car, inCaptures: job.file("capture"))
        let sent = Self.text(job, "truth-1.log").split(separator: "\n").compactMap { line -> Double? in
            let fields = line.split(separator: " ")
            return fields.count >= 5 && fields[1] == "sent" && fields[2] == Self.car && fields[4] == "adv" ? Double(fields[0]) : nil
        }
        var shares: [String: Double] = [:]
        var rates: [String: Double] = [:]
        for window in ["alone", "scan", "radio"] {
            let bounds = Self.text(job, "window-\(window)").split(separator: "\n").compactMap { Double($0) }
            try #require(bounds.count == 2, "window \(window): \(bounds)")
            // A second in from each end: the scan's start and stop are not what is measured.
            let range = (bounds[0] + 1)...(bounds[1] - 1)
            let times = heard.filter(range.contains)
            let count = sent.filter(range.contains).count
            let gaps = zip(times.dropFirst(), times).map { $0 - $1 }
            shares[window] = Double(times.count) / Double(max(count, 1))
            rates[window] = Double(count) / (range.upperBound - range.lowerBound)
            let name = window == "alone" ? "alone" : window == "scan" ? "beside scan" : "beside scan --radio"
            // The controller sends while it scans: a discovery's cycles leave it off for part of the time.
            let sending = window == "alone" ? "" : String(format: ", the controller sending %.0f %% of what it sent alone", rates[window]! / rates["alone"]! * 100)
            print("virtual Pi: \(name): the daemon heard the car's beacon \(times.count) times of \(count) sent "
                  + "(\(String(format: "%.1f", shares[window]! * 100)) %), longest gap \(String(format: "%.2f", gaps.max() ?? -1)) s\(sending)")
            guard window != "radio" else { continue }
            #expect(count >= 150, "window \(window): the controller sent the beacon \(count) times")
            #expect((gaps.max() ?? 99) <= 2.0, "\(window): longest gap \(gaps.max() ?? -1) s")
        }
        #expect(shares["alone"]! >= 0.95, "alone: \(shares)")
        #expect(abs(shares["scan"]! - shares["alone"]!) <= 0.02, "beside scan: \(shares)")
        let scanLog = Self.text(job, "scan-beside.log")
        #expect(scanLog.contains("scanning through the daemon, in its mgmt mode"), "\(scanLog)")
        let scanLines = Self.text(job, "scan-beside.ndjson").split(separator: "\n").filter { $0.contains(Self.identity) }.count
        print("virtual Pi: scan beside the daemon printed \(scanLines) sightings of the car's beacon; scan --radio: "
              + "\(Self.text(job, "scan-radio.ndjson").split(separator: "\n").filter { $0.contains(Self.identity) }.count)")
        #expect(scanLines >= 150, "\(scanLog)")
    }

    /// When the captures in `directory` heard `address` (wall clock, seconds since 1970).
    static func heard(_ address: String, inCaptures directory: String) throws -> [Double] {
        let files = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { $0.hasSuffix(".wmcap") }.sorted()
        try #require(!files.isEmpty, "no capture in \(directory)")
        var times: [Double] = []
        for file in files {
            let reader = try CaptureReader(path: directory + "/" + file)
            while let record = reader.next() {
                if case .advert(_, let sighting) = record.body, sighting.address.description == address { times.append(record.wall) }
            }
        }
        return times.sorted()
    }

    /// `smaps` summed by what is mapped (a file, or [heap], [stack], anonymous), largest first.
    static func pssByMapping(_ smaps: String) -> String {
        var pss: [String: Int] = [:]
        var current = "?"
        for line in smaps.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if let first = fields.first, first.contains("-"), fields.count >= 5, first.allSatisfy({ $0.isHexDigit || $0 == "-" }) {
                current = fields.count >= 6 ? String(fields[5...].joined(separator: " ")) : "[anonymous]"
            } else if fields.first == "Pss:", fields.count >= 2, let kib = Int(fields[1]) {
                pss[current, default: 0] += kib
            }
        }
        return pss.sorted { $0.value > $1.value }.prefix(16).map { "  \($0.value)\t\($0.key)" }.joined(separator: "\n")
            + "\n  \(pss.values.reduce(0, +))\tin all"
    }

    /// The same package with a higher version (VERSION+next), for the upgrade.
    static func repackage(_ path: String, in job: TemporaryDirectory) throws -> String {
        let unpacked = job.file("repack")
        let script = """
            set -e
            dpkg-deb -R '\(path)' '\(unpacked)'
            version=$(sed -n 's/^Version: //p' '\(unpacked)/DEBIAN/control')
            sed -i "s/^Version: .*/Version: $version+next/" '\(unpacked)/DEBIAN/control'
            dpkg-deb --root-owner-group -Zxz -b '\(unpacked)' '\(job.path)/' >/dev/null
            rm -rf '\(unpacked)'
            """
        let process = try ChildProcess("/bin/sh", ["-c", script], aptPackage: "dpkg", logPath: job.file("repack.log"))
        guard try process.wait(timeout: 120) == 0 else { throw PeerError.startFailed("dpkg-deb", output: process.output) }
        let name = (path as NSString).lastPathComponent
        let parts = name.split(separator: "_")
        return "\(parts[0])_\(parts[1])+next_\(parts[2])"
    }

    static func text(_ job: TemporaryDirectory, _ name: String) -> String {
        ((try? String(contentsOfFile: job.file(name), encoding: .utf8)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func json(_ job: TemporaryDirectory, _ name: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text(job, name).utf8)) as? [String: Any], "\(name): \(text(job, name))")
    }
}
