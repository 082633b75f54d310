import Foundation

/// An arm64 machine under QEMU's software emulation (`virt`, Cortex-A72
/// cores as on a Pi 4) booting Debian trixie's arm64 kernel with systemd as
/// PID 1 from the disk `Tests/Pi/pi-image.sh` made. Its disk is a copy on
/// write over that image, so boots of one `VirtualPi` share their disk as
/// a Pi's boots share its SD card, and the image stays clean.
///
/// - The job folder is `/job` in the guest, whose `waymark-pi-job.service`
///   runs `/job/pi-job.sh`.
/// - The only network is QEMU's user-mode net with nothing routed: each
///   port in `forwards` on 10.0.2.100 reaches the host's loopback.
/// - A GPS receiver: the virtio serial port `gps0`, fed one RMC and GGA
///   sentence a second at a fixed position, with the host's time.
public final class VirtualPi: Sendable {
    public static let programs = [("qemu-system-aarch64", "qemu-system-arm"), ("qemu-img", "qemu-utils"), ("socat", "socat")]
    let image: String
    let job: TemporaryDirectory
    let forwards: [Int]

    public init(image: String, job: TemporaryDirectory, forwards: [Int]) throws {
        (self.image, self.job, self.forwards) = (image, job, forwards)
        for (program, package) in Self.programs { _ = try ChildProcess.locate(program, aptPackage: package) }
        for file in ["vmlinuz", "initrd.img", "disk.img"] where !FileManager.default.fileExists(atPath: image + "/" + file) {
            throw PeerError.startFailed("virtual Pi", output: "\(image)/\(file) is missing: make it with Tests/Pi/pi-image.sh")
        }
        let overlay = try ChildProcess("qemu-img", ["create", "-q", "-f", "qcow2", "-b", image + "/disk.img", "-F", "raw", job.file("disk.qcow2")],
                                       aptPackage: "qemu-utils", logPath: job.file("qemu-img.log"))
        guard try overlay.wait(timeout: 30) == 0 else { throw PeerError.startFailed("qemu-img", output: overlay.output) }
    }

    /// Boots and waits until the console shows one of `markers` (returned)
    /// or the machine powers off (nil), for at most `timeout` seconds. The
    /// machine is still running when a marker is returned: stop it with
    /// `cut` or wait for it with `waitForPowerOff`.
    public func boot(_ number: Int, until markers: [String], timeout: Double) throws -> (machine: ChildProcess, marker: String?) {
        let console = job.file("console-\(number).log")
        let machine = try ChildProcess("qemu-system-aarch64", [
            "-M", "virt", "-cpu", "cortex-a72", "-smp", "2", "-m", "1024", "-accel", "tcg,thread=multi",
            "-display", "none", "-monitor", "none", "-no-reboot", "-serial", "file:\(console)",
            "-kernel", image + "/vmlinuz", "-initrd", image + "/initrd.img",
            "-append", "root=/dev/vda rw console=ttyAMA0 panic=-1 quiet",
            "-drive", "file=\(job.file("disk.qcow2")),if=virtio,format=qcow2",
            "-virtfs", "local,path=\(job.path),mount_tag=job,security_model=none",
            "-netdev", QEMUNetwork.loopbackForwards(forwards), "-device", "virtio-net-pci,netdev=net",
            "-device", "virtio-serial-pci", "-chardev", "socket,id=gps,path=\(job.file("gps.sock")),server=on,wait=off",
            "-device", "virtserialport,chardev=gps,name=gps0",
        ], aptPackage: "qemu-system-arm", logPath: job.file("qemu-\(number).log"))
        feedReceiver(socket: job.file("gps.sock"), while: machine)
        let deadline = Date().addingTimeInterval(timeout)
        while machine.isRunning {
            let text = (try? String(contentsOfFile: console, encoding: .utf8)) ?? ""
            if let marker = markers.first(where: text.contains) { return (machine, marker) }
            guard Date() < deadline else {
                machine.kill(SIGKILL)
                throw PeerError.timedOut("the virtual Pi's boot \(number) to show \(markers.joined(separator: " or "))")
            }
            usleep(200_000)
        }
        return (machine, nil)
    }

    /// The console of boot `number` so far.
    public func console(_ number: Int) -> String {
        (try? String(contentsOfFile: job.file("console-\(number).log"), encoding: .utf8)) ?? ""
    }

    /// A GPS receiver on the virtio serial port, once a second, until the machine stops.
    private func feedReceiver(socket path: String, while machine: ChildProcess) {
        Thread.detachNewThread {
            var descriptor: Int32 = -1
            while machine.isRunning {
                if descriptor < 0 { descriptor = Self.connect(path) }
                if descriptor >= 0 {
                    let now = Date()
                    let time = Self.utc(now, "HHmmss.SS"), date = Self.utc(now, "ddMMyy")
                    let epoch = NMEAText.sentence("GPRMC,\(time),A,4813.0535,N,00824.8697,E,1.5,90.0,\(date),,,A")
                        + NMEAText.sentence("GPGGA,\(time),4813.0535,N,00824.8697,E,1,08,1.0,765.8,M,47.4,M,,")
                    if epoch.utf8CString.withUnsafeBufferPointer({ send(descriptor, $0.baseAddress, $0.count - 1, Int32(MSG_NOSIGNAL)) }) < 0 {
                        close(descriptor)
                        descriptor = -1
                    }
                }
                sleep(1)
            }
            if descriptor >= 0 { close(descriptor) }
        }
    }

    private static func connect(_ path: String) -> Int32 {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in path.utf8.prefix(buffer.count - 1).enumerated() { buffer[index] = byte }
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        if connected == 0 { return descriptor }
        close(descriptor)
        return -1
    }

    private static func utc(_ date: Date, _ format: String) -> String {
        let formatter = DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = format
        return formatter.string(from: date)
    }
}
