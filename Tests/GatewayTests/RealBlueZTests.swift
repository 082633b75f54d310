import Foundation
import PeerHarness
import Testing

/// `waymark` against the real Bluetooth stack: a VM under QEMU's software
/// emulation runs the kernel's hci_vhci, bluetoothd and btvirt, with one
/// virtual controller advertising an iBeacon (Tests/VM). The session is made
/// here against glewlwyd, as a user would before the car leaves; inside the
/// VM there is no network, and the gateway arms from the stored session.
struct RealBlueZTests {
    static let vmDirectory = Checkout.path("Tests/VM")
    /// The iBeacon of the end-to-end tests as a manufacturer-data AD
    /// structure; the kernel adds the flags (`add-adv -g`).
    static let advert = "1aff4c00" + "0215e2c56db5dffb48d2b060d0f5a71096e000640000c5"
    static let identity = "ibeacon:e2c56db5-dffb-48d2-b060-d0f5a71096e0:100:0"

    @Test func inAVMWithRealBluetoothdTheBeaconIsPairedByIdentityAndATripStarts() async throws {
        let kernel = try Self.kernel()
        for (program, package) in [("qemu-system-x86_64", "qemu-system-x86"), ("btvirt", "bluez-test-tools"), ("busybox", "busybox-static"),
                                   ("cpio", "cpio"), ("modprobe", "kmod"), ("btmgmt", "bluez")] {
            _ = try ChildProcess.locate(program, aptPackage: package)
        }
        let rig = try SessionCommandTests.Rig()
        defer { rig.stop() }
        #expect(try rig.run(["login", "--username", Glewlwyd.username, "--password-stdin"], stdin: Glewlwyd.password + "\n").status == 0)

        let job = try TemporaryDirectory("waymark-vm")
        // Kept after a failure, for the logs of every step.
        var finished = false
        defer { if finished { job.remove() } }
        let files = FileManager.default
        try files.copyItem(atPath: try WaymarkBinary.path, toPath: job.file("waymark"))
        try files.copyItem(atPath: rig.work.file("data"), toPath: job.file("data"))
        try files.copyItem(atPath: rig.work.file("client-secret"), toPath: job.file("client-secret"))
        try files.copyItem(atPath: Self.vmDirectory + "/vm-job.sh", toPath: job.file("vm-job.sh"))
        try files.copyItem(atPath: Checkout.path("hardware/io.waymark.Gateway1.conf"), toPath: job.file("io.waymark.Gateway1.conf"))
        // The job runs waymark as user waymark, which must reach into /job.
        chmod(job.path, 0o755)
        let config = try String(contentsOfFile: rig.work.file("waymark.conf"), encoding: .utf8)
            .replacingOccurrences(of: rig.work.file("client-secret"), with: "/etc/waymark/client-secret")
        try (config + """

            [Bluetooth]
            # hci0 advertises; hci1 scans. The emulated controller filters
            # duplicates: it reports an advertiser once per discovery, so the
            # watchdog restarts discovery after a short silence.
            Adapter = hci1
            ScanWatchdog = 3s

            [Recording]
            TripStartWindow = 60s

            [Location]
            # A receiver that is plugged in and silent.
            Source = nmea:///run/waymark-gps

            """).write(toFile: job.file("waymark.conf"), atomically: true, encoding: .utf8)
        try "ADVERT=\(Self.advert)\n".write(toFile: job.file("job.env"), atomically: true, encoding: .utf8)

        let initramfs = try ChildProcess("/bin/sh", [Self.vmDirectory + "/make-initramfs.sh", kernel.version, job.file("initrd.gz")],
                                         aptPackage: "busybox-static, cpio and kmod", logPath: job.file("initramfs.log"))
        #expect(try initramfs.wait(timeout: 60) == 0, "\(initramfs.output)")

        let qemu = try ChildProcess("qemu-system-x86_64", [
            "-accel", "tcg", "-cpu", "max", "-m", "1024", "-smp", "2", "-nographic", "-no-reboot", "-nic", "none",
            "-kernel", kernel.image, "-initrd", job.file("initrd.gz"),
            "-append", "console=ttyS0 panic=-1 loglevel=4 cryptomgr.notests",
            "-virtfs", "local,path=/,mount_tag=host,security_model=none,readonly=on,multidevs=remap",
            "-virtfs", "local,path=\(job.path),mount_tag=job,security_model=none,multidevs=remap",
        ], aptPackage: "qemu-system-x86", logPath: job.file("console.log"))
        defer { qemu.stop() }
        _ = try qemu.wait(timeout: 480)
        let console = qemu.output
        let code = (try? String(contentsOfFile: job.file("exit-code"), encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
        let logs = ["btmgmt.log", "run.log", "pair.log", "scan.log", "bluetoothd.log"].map { name in
            "--- \(name)\n" + ((try? String(contentsOfFile: job.file(name), encoding: .utf8)) ?? "(none)").suffix(3000)
        }.joined(separator: "\n")
        try #require(code == "0", "the VM's job failed (\(code ?? "no exit code")); its files are in \(job.path):\n\(console.suffix(4000))\n\(logs)")

        // Seen by waymark scan through real bluetoothd, and paired by identity.
        let scan = try String(contentsOfFile: job.file("scan.ndjson"), encoding: .utf8)
        #expect(scan.contains(Self.identity), "\(scan)")
        let beacons = try String(contentsOfFile: job.file("beacons.json"), encoding: .utf8)
        #expect(beacons.contains(Self.identity) && beacons.contains(#""role":"vehicle""#), "\(beacons)")
        let run = try String(contentsOfFile: job.file("run.log"), encoding: .utf8)
        #expect(run.contains("recording: running (1 vehicle beacon"), "\(run)")
        #expect(!run.contains("control interface not available"), "the policy file lets user waymark own its name: \(run)")
        let status = try String(contentsOfFile: job.file("status.txt"), encoding: .utf8)
        #expect(status.contains("daemon:       running"), "\(status)")
        let trips = try String(contentsOfFile: job.file("trips.json"), encoding: .utf8)
        #expect(trips.contains(#""id":"trip-"#), "\(trips)")
        let exit = try? String(contentsOfFile: job.file("run-exit"), encoding: .utf8)
        #expect(exit?.hasPrefix("0") == true, "the daemon stops cleanly on SIGTERM: exit \(exit ?? "?")\n\(run.suffix(3000))")

        // The doctor, against real bluetoothd: every Bluetooth check passes and the version is read.
        let doctor = try String(contentsOfFile: job.file("doctor.json"), encoding: .utf8)
        let checks = try #require(try JSONSerialization.jsonObject(with: Data(doctor.utf8)) as? [String: [[String: Any]]])["checks"] ?? []
        for check in checks where check["area"] as? String == "bluetooth" {
            #expect(check["ok"] as? Bool == true, "\(check)")
        }
        let service = checks.first { $0["name"] as? String == "bluetoothd-version" }
        #expect((service?["detail"] as? String)?.hasPrefix("bluetoothd 5.66") == true, "\(String(describing: service))")
        finished = true
    }

    /// The Debian kernel (linux-image-amd64) whose modules are installed.
    static func kernel() throws -> (version: String, image: String) {
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/lib/modules")) ?? []
        for version in versions.sorted().reversed() where FileManager.default.fileExists(atPath: "/boot/vmlinuz-\(version)") {
            return (version, "/boot/vmlinuz-\(version)")
        }
        throw PeerError.missingProgram("/boot/vmlinuz-*", aptPackage: "linux-image-amd64")
    }
}
