import Foundation

/// A VM under QEMU's software emulation with the real Bluetooth stack:
/// Debian's kernel with hci_vhci, the host's root read-only under a tmpfs
/// overlay, and a job folder whose `vm-job.sh` the VM runs as its only
/// task (`Tests/VM/vm-init`). The job writes its results into the folder
/// and `exit-code`, then powers the VM off.
public enum BlueZVM {
    /// The programs the VM and its jobs need, with their Debian packages.
    public static let programs = [("qemu-system-x86_64", "qemu-system-x86"), ("btvirt", "bluez-test-tools"), ("busybox", "busybox-static"),
                                  ("cpio", "cpio"), ("modprobe", "kmod"), ("btmgmt", "bluez")]

    /// The Debian kernel (linux-image-amd64) whose modules are installed.
    public static func kernel() throws -> (version: String, image: String) {
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/lib/modules")) ?? []
        for version in versions.sorted().reversed() where FileManager.default.fileExists(atPath: "/boot/vmlinuz-\(version)") {
            return (version, "/boot/vmlinuz-\(version)")
        }
        throw PeerError.missingProgram("/boot/vmlinuz-*", aptPackage: "linux-image-amd64")
    }

    /// Boots the VM on `job` and waits up to `timeout` seconds for it to
    /// power off. `scripts` is `Tests/VM` (vm-init and make-initramfs.sh).
    /// Returns the serial console's output and the job's exit code (nil
    /// when it wrote none).
    public static func run(job: TemporaryDirectory, scripts: String, timeout: Double) throws -> (console: String, exitCode: String?) {
        let qemu = try boot(job: job, scripts: scripts)
        defer {
            qemu.stop()
            unlink(job.file("initrd.gz"))
        }
        _ = try qemu.wait(timeout: timeout)
        let code = (try? String(contentsOfFile: job.file("exit-code"), encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
        return (qemu.output, code)
    }

    /// Starts the VM on `job`; its serial console goes to `console` in the
    /// job folder. `disk` is a raw image attached as /dev/vda with QEMU's
    /// `cache=none`: no cache on the host side, and the guest's flushes
    /// reach the image, as an SD card's would; with `writeLog`, QEMU also
    /// logs every write and flush to that file, in device-mapper's
    /// log-writes format. Each port of `forwards` on 10.0.2.100 reaches the
    /// host's loopback, over QEMU's user-mode network with nothing else
    /// routed. `cores` is the guest's CPUs, each a host thread. Always TCG:
    /// KVM under a nested hypervisor, as CI machines are, hung at boot here.
    public static func boot(job: TemporaryDirectory, scripts: String, console: String = "console.log", disk: String? = nil,
                            writeLog: String? = nil, forwards: [Int] = [], cores: Int = 2) throws -> ChildProcess {
        let kernel = try kernel()
        for (program, package) in programs { _ = try ChildProcess.locate(program, aptPackage: package) }
        let initrd = job.file("initrd.gz")
        if !FileManager.default.fileExists(atPath: initrd) {
            let initramfs = try ChildProcess("/bin/sh", [scripts + "/make-initramfs.sh", kernel.version, initrd],
                                             aptPackage: "busybox-static, cpio and kmod", logPath: job.file("initramfs.log"))
            guard try initramfs.wait(timeout: 60) == 0 else { throw PeerError.startFailed("make-initramfs.sh", output: initramfs.output) }
        }
        let network = forwards.isEmpty ? ["-nic", "none"] : ["-netdev", QEMUNetwork.loopbackForwards(forwards), "-device", "virtio-net-pci,netdev=net"]
        let drive: [String]
        switch (disk, writeLog) {
        case (let disk?, let log?):
            // QEMU's blklogwrites between the guest and the image: every write and flush, in order.
            drive = ["-blockdev", "driver=file,node-name=store-file,filename=\(disk),cache.direct=on",
                     "-blockdev", "driver=file,node-name=log-file,filename=\(log)",
                     "-blockdev", "driver=blklogwrites,node-name=store,file=store-file,log=log-file,log-sector-size=512,log-super-update-interval=1",
                     "-device", "virtio-blk-pci,drive=store"]
        case (let disk?, nil): drive = ["-drive", "file=\(disk),if=virtio,format=raw,cache=none"]
        default: drive = []
        }
        return try ChildProcess("qemu-system-x86_64", [
            "-accel", "tcg", "-cpu", "max", "-m", "1024", "-smp", String(cores), "-nographic", "-no-reboot",
            "-kernel", kernel.image, "-initrd", initrd,
            "-append", "console=ttyS0 panic=-1 loglevel=4 cryptomgr.notests",
            "-virtfs", "local,path=/,mount_tag=host,security_model=none,readonly=on,multidevs=remap",
            "-virtfs", "local,path=\(job.path),mount_tag=job,security_model=none,multidevs=remap",
        ] + network + drive, aptPackage: "qemu-system-x86", logPath: job.file(console))
    }
}
