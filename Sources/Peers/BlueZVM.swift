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
        let kernel = try kernel()
        for (program, package) in programs { _ = try ChildProcess.locate(program, aptPackage: package) }
        let initramfs = try ChildProcess("/bin/sh", [scripts + "/make-initramfs.sh", kernel.version, job.file("initrd.gz")],
                                         aptPackage: "busybox-static, cpio and kmod", logPath: job.file("initramfs.log"))
        guard try initramfs.wait(timeout: 60) == 0 else { throw PeerError.startFailed("make-initramfs.sh", output: initramfs.output) }
        defer { unlink(job.file("initrd.gz")) }
        let qemu = try ChildProcess("qemu-system-x86_64", [
            "-accel", "tcg", "-cpu", "max", "-m", "1024", "-smp", "2", "-nographic", "-no-reboot", "-nic", "none",
            "-kernel", kernel.image, "-initrd", job.file("initrd.gz"),
            "-append", "console=ttyS0 panic=-1 loglevel=4 cryptomgr.notests",
            "-virtfs", "local,path=/,mount_tag=host,security_model=none,readonly=on,multidevs=remap",
            "-virtfs", "local,path=\(job.path),mount_tag=job,security_model=none,multidevs=remap",
        ], aptPackage: "qemu-system-x86", logPath: job.file("console.log"))
        defer { qemu.stop() }
        _ = try qemu.wait(timeout: timeout)
        let code = (try? String(contentsOfFile: job.file("exit-code"), encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
        return (qemu.output, code)
    }
}
