import Basics
import Foundation
import PeerHarness
import Testing

/// The arm64 package on a virtual Pi, as a user installs and runs it: QEMU's
/// `virt` machine boots trixie's arm64 kernel with systemd as PID 1
/// (Tests/Pi), with bluetoothd and btvirt's controllers, and gpsd on a
/// virtio serial port. glewlwyd and the ingest run here, reached through
/// QEMU's forwarding only. `make test-pi` makes the package and the image
/// and passes their paths in WAYMARK_PI_DEB and WAYMARK_PI_IMAGE.
struct VirtualPiTests {
    static let advert = "1aff4c00" + "0215e2c56db5dffb48d2b060d0f5a71096e000640000c5"
    static let identity = "ibeacon:e2c56db5-dffb-48d2-b060-d0f5a71096e0:100:0"

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
        try (config + """

            [Bluetooth]
            # hci0 is the car's beacon; btvirt reports an advertiser once per
            # scan, so discovery is cycled (active mode).
            Adapter = hci1
            ScanMode = active

            [Recording]
            BeaconLostTimeout = 30s
            ReopenWindow = 5s

            """).write(toFile: job.file("waymark.conf"), atomically: true, encoding: .utf8)
        let issuerPort = try #require(URLComponents(string: provider.issuer)?.port)
        let ingestPort = try #require(URLComponents(string: backend.baseURL)?.port)
        try """
            DEB=\(name)
            DEB_NEXT=\(next)
            ADVERT=\(Self.advert)
            OIDC_PORT=\(issuerPort)
            INGEST_PORT=\(ingestPort)
            USERNAME=\(Glewlwyd.username)
            PASSWORD=\(Glewlwyd.password)

            """.write(toFile: job.file("job.env"), atomically: true, encoding: .utf8)
        for script in ["Pi/pi-job.sh", "VM/vhci-crypto.sh"] {
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
        // 8. A purge leaves no file behind.
        let before = Set(Self.text(job, "files-before.txt").split(separator: "\n"))
        let left = Self.text(job, "files-after.txt").split(separator: "\n").filter { !before.contains($0) }
        #expect(left.isEmpty, "left after apt purge: \(left)")

        let memory = Self.text(job, "memory.txt").split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true) }
        print("virtual Pi: " + memory.map { "\($0[0]) \(String(format: "%.1f", (Double($0[1]) ?? 0) / 1024)) MiB" }.joined(separator: ", ")
              + " while recording; launch → armed under systemd \(Self.text(job, "launch-to-armed.txt")) s; boot → armed \(Self.text(job, "boot-to-armed.txt")) s")
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
