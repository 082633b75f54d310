public import Basics
internal import Glibc

/// The kernel monitors a process has added, in a file: one line per
/// monitor, `BOOT_ID hciN HANDLE`. The kernel keeps a monitor after its
/// process is killed, so the next start removes those of this boot that
/// the file still names (a reboot has removed the rest). Written whole and
/// renamed into place, so that a power cut leaves the old list or the new.
public struct KernelMonitorRecord: Sendable {
    public let path: String

    public init(path: String) { self.path = path }

    /// The monitors the file names for boot `bootID`; a line that is not
    /// one (or of another boot) is left out.
    public func monitors(bootID: String) -> [KernelMonitor] {
        guard let bytes = try? BoundedFile.read(path, limit: 1 << 16) else { return [] }
        return String(decoding: bytes, as: UTF8.self).split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ")
            guard fields.count == 3, fields[0] == bootID, fields[1].hasPrefix("hci"),
                  let controller = UInt16(fields[1].dropFirst(3)), let handle = UInt16(fields[2]), handle != 0 else { return nil }
            return KernelMonitor(controller: controller, handle: handle)
        }
    }

    /// Replaces the file with `monitors` of boot `bootID`; with none, removes it.
    public func save(_ monitors: [KernelMonitor], bootID: String) throws(DurableFileError) {
        guard !monitors.isEmpty else {
            if unlink(path) != 0, errno != ENOENT { throw .system(path: path, operation: "unlink", errno: errno) }
            return
        }
        let text = monitors.map { "\(bootID) hci\($0.controller) \($0.handle)\n" }.joined()
        try DurableFile.write(Array(text.utf8), to: path, mode: 0o600, replace: true)
    }

    /// This boot's id, as the kernel gives it; nil where it cannot be read.
    public static var bootID: String? {
        KernelFile.line("/proc/sys/kernel/random/boot_id").flatMap { $0.isEmpty ? nil : $0 }
    }
}
