@testable import CLI
import Foundation
import PeerHarness
@testable import Run
import Testing

/// `waymark doctor` against the real peers: all green, then gpsd gone.
struct DoctorTests {
    @Test func doctorPassesWithEveryPeerUpAndNamesTheFixWhenGpsdIsGone() async throws {
        let car = try await RecordingRig()
        defer { car.stop() }
        let environment = car.bluez.bus.environment
        let healthy = try car.session.run(["doctor", "--json"], environment: environment)
        // stdout and stderr share the log: the report is the line of JSON.
        let report = try #require(healthy.output.split(separator: "\n").first { $0.hasPrefix("{") }, "\(healthy.output)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(report.utf8)) as? [String: [[String: Any]]])
        let checks = try #require(json["checks"])
        let failing = checks.filter { $0["ok"] as? Bool != true }.map { "\($0["area"] ?? "")/\($0["name"] ?? ""): \($0["detail"] ?? "")" }
        #expect(healthy.status == 0 && failing.isEmpty, "\(failing)")
        let areas = Set(checks.compactMap { $0["area"] as? String })
        #expect(areas == ["bluetooth", "location", "store", "session", "network", "system"])
        // The mock is python-dbusmock, and the doctor says so rather than a version.
        let service = checks.first { $0["name"] as? String == "bluetoothd-version" }
        #expect((service?["detail"] as? String)?.contains("not bluetoothd") == true, "\(String(describing: service))")

        car.gpsd?.stop()
        let broken = try car.session.run(["doctor"], environment: environment)
        #expect(broken.status == 1)
        #expect(broken.output.contains("FAIL  location: reachable"))
        #expect(broken.output.contains("fix: the location source is unreachable"))
    }

    /// No system bus (so no bluetoothd), no gpsd, and a store the user
    /// cannot write: one failure and one fix per cause, every check that
    /// depends on a failure skipped, and nothing printed before the first
    /// check. Run as user nobody, since root writes anywhere.
    @Test func eachCauseFailsOnceAndWhatDependsOnItIsSkipped() throws {
        let directory = try TemporaryDirectory("waymark-doctor")
        defer { directory.remove() }
        chmod(directory.path, 0o755)
        let backend = try IngestServer(directory: directory)
        defer { backend.stop() }
        let data = directory.file("data")
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: false)
        chown(data, 65534, 65534)
        chmod(data, 0o500)
        let gpsd = try FreePort.tcp()
        try "[Location]\nSource = gpsd://127.0.0.1:\(gpsd)\n\n[Backend]\nBaseURL = \(backend.baseURL)\n"
            .write(toFile: directory.file("waymark.conf"), atomically: true, encoding: .utf8)
        let doctor = try ChildProcess(
            "setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", try WaymarkBinary.path,
                        "--config", directory.file("waymark.conf"), "--data-dir", data, "doctor"],
            aptPackage: "util-linux", environment: ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=\(directory.file("no-bus"))"],
            logPath: directory.file("doctor.log"))
        #expect(try doctor.wait(timeout: 30) == 1)
        let year = Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "UTC")!, from: Date()).year!
        // bluetoothd keeps its storage to root, where BlueZ is installed.
        let cache = FileManager.default.fileExists(atPath: "/var/lib/bluetooth")
            ? "cannot read /var/lib/bluetooth (bluetoothd keeps it to root): run doctor as root to count its cache"
            : "no /var/lib/bluetooth: BlueZ has stored nothing"
        #expect(doctor.output == """
            FAIL  bluetooth: system-bus: missing
                  fix: the system D-Bus is not running (systemctl start dbus)
            skip  bluetooth: bluetooth-service: skipped (needs: bluetooth/system-bus)
            skip  bluetooth: bluetooth-access: skipped (needs: bluetooth/bluetooth-service)
            skip  bluetooth: bluetooth-adapter: skipped (needs: bluetooth/bluetooth-access)
            ok    bluetooth: rfkill: not blocked
            skip  bluetooth: adapter-powered: skipped (needs: bluetooth/bluetooth-adapter)
            skip  bluetooth: bluetoothd-version: skipped (needs: bluetooth/bluetooth-service)
            skip  bluetooth: advertisement-monitors: skipped (needs: bluetooth/bluetooth-adapter)
            skip  bluetooth: scan-mode: skipped (needs: bluetooth/bluetooth-adapter)
            FAIL  location: reachable: gpsd://127.0.0.1:\(gpsd)
                  fix: the location source is unreachable (systemctl start gpsd, or check [Location] Source)
            skip  location: device: skipped (needs: location/reachable)
            skip  location: fix: skipped (needs: location/device)
            FAIL  store: writable: \(data)
                  fix: chmod 700 \(data)
            ok    store: permissions: 500
            skip  store: integrity: skipped (needs: store/writable)
            skip  bluetooth: radio-power-cycle: skipped (needs: store/integrity)
            ok    bluetooth: bluez-cache: \(cache)
            skip  session: authorized: skipped (needs: store/integrity)
            skip  session: account: skipped (needs: session/authorized)
            ok    network: backend: \(backend.baseURL): answered 501
            ok    system: clock: year \(year)

            """)
    }

    /// BlueZ's device cache, counted per adapter: a warning past the limit,
    /// with the clean that bounds it; no storage at all is said so.
    @Test func bluezCacheIsCountedPerAdapterAndWarnsPastTheLimit() throws {
        let storage = try TemporaryDirectory("waymark-bluez-cache")
        defer { storage.remove() }
        for (adapter, count) in [("00:11:22:33:44:55", 3), ("66:77:88:99:AA:BB", 4)] {
            try FileManager.default.createDirectory(atPath: storage.file("\(adapter)/cache"), withIntermediateDirectories: true)
            for n in 0..<count { #expect(FileManager.default.createFile(atPath: storage.file("\(adapter)/cache/C0:00:00:00:00:0\(n)"), contents: Data())) }
        }
        let under = Doctor.bluezCache(storage: storage.path, limit: 7)
        #expect(under.status == .ok && under.detail.hasPrefix("7 device files") && under.detail.contains("00:11:22:33:44:55: 3"), "\(under.detail)")
        let over = Doctor.bluezCache(storage: storage.path, limit: 6)
        #expect(over.status == .warn && over.fix?.contains("systemd-tmpfiles --clean") == true, "\(over)")
        let absent = Doctor.bluezCache(storage: storage.file("absent"))
        #expect(absent.status == .ok && absent.detail.hasPrefix("no "), "\(absent.detail)")
        // Unreadable storage is the unprivileged doctor's case, in the test above.
    }

    /// The shipped tmpfiles rule, run by systemd-tmpfiles itself on a root
    /// of its own: cache files not written for 30 days go, newer ones and
    /// the pairings' own files stay.
    @Test func theShippedTmpfilesRuleRemovesCacheFilesNotWrittenFor30Days() throws {
        let root = try TemporaryDirectory("waymark-tmpfiles")
        defer { root.remove() }
        let adapter = root.file("var/lib/bluetooth/00:11:22:33:44:55")
        try FileManager.default.createDirectory(atPath: adapter + "/cache", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: adapter + "/C0:FF:EE:00:00:01", withIntermediateDirectories: true)
        let old = Date(timeIntervalSinceNow: -40 * 86_400)
        for (file, date) in [("cache/C0:00:00:00:00:01", old), ("cache/C0:00:00:00:00:02", Date()), ("C0:FF:EE:00:00:01/info", old)] {
            #expect(FileManager.default.createFile(atPath: adapter + "/" + file, contents: Data("[General]\n".utf8)))
            try FileManager.default.setAttributes([.modificationDate: date], ofItemAtPath: adapter + "/" + file)
        }
        // Only the cache's line: the others name the waymark user, which this root has not.
        let rule = try String(contentsOfFile: Checkout.path("hardware/waymark.tmpfiles"), encoding: .utf8)
            .split(separator: "\n").filter { $0.hasPrefix("e /var/lib/bluetooth/") }.joined(separator: "\n")
        #expect(!rule.isEmpty)
        try (rule + "\n").write(toFile: root.file("bluez-cache.conf"), atomically: true, encoding: .utf8)
        let clean = try ChildProcess("systemd-tmpfiles", ["--root=\(root.path)", "--clean", root.file("bluez-cache.conf")], aptPackage: "systemd",
                                     logPath: root.file("tmpfiles.log"))
        #expect(try clean.wait(timeout: 30) == 0, "\(clean.output)")
        let left = Set(try FileManager.default.subpathsOfDirectory(atPath: adapter))
        #expect(left == ["cache", "cache/C0:00:00:00:00:02", "C0:FF:EE:00:00:01", "C0:FF:EE:00:00:01/info"], "\(left)")
    }
}
