package import DBus
import FoundationEssentials
import Glibc

/// Who serves `org.bluez`, and at which version: the bus says which process
/// owns the name, its command line says which program that is, and
/// bluetoothd says its own version.
package struct BluetoothService: Sendable, Equatable {
    /// The tested release is 5.66 (Debian 12); SetDiscoveryFilter's
    /// DuplicateData, which keeps adverts flowing, needs a recent BlueZ.
    package static let oldestSupported = [5, 50]

    package var program: String
    package var pid: UInt32
    /// nil unless the program is bluetoothd.
    package var version: String?

    package var isBluetoothd: Bool { program.split(separator: "/").last == "bluetoothd" }

    package var isSupported: Bool {
        guard let version else { return false }
        let parts = version.split(separator: ".").map { Int($0) ?? 0 }
        return parts.lexicographicallyPrecedes(Self.oldestSupported) == false
    }

    package static func find(on bus: DBusConnection) async -> BluetoothService? {
        guard let reply = try? await bus.call(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            method: "GetConnectionUnixProcessID", arguments: [.string("org.bluez")]),
            let pid = reply.first?.int64.map(UInt32.init(truncatingIfNeeded:)) else { return nil }
        // The command line is readable by anyone, unlike /proc/PID/exe.
        guard let cmdline = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline"),
              let first = cmdline.split(separator: 0).first else { return nil }
        var service = BluetoothService(program: String(decoding: first, as: UTF8.self), pid: pid)
        if service.isBluetoothd { service.version = version(of: service.program) }
        return service
    }

    /// `bluetoothd --version` prints the bare version, such as "5.66".
    /// Spawned directly: Foundation's Process hung here inside the VM test.
    package static func version(of program: String) -> String? {
        var pipe: [Int32] = [0, 0]
        guard Glibc.pipe(&pipe) == 0 else { return nil }
        // Close-on-exec, so that no other child holds the write end open.
        pipe.forEach { _ = fcntl($0, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, pipe[1], 1)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv = [strdup(program), strdup("--version"), nil]
        defer { argv.forEach { free($0) } }
        var child: pid_t = 0
        let spawned = posix_spawn(&child, program, &actions, nil, argv, environ) == 0
        close(pipe[1])
        defer { close(pipe[0]) }
        guard spawned else { return nil }
        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 256)
        while output.count < 4096 {
            let count = read(pipe[0], &buffer, buffer.count)
            guard count > 0 else { break }
            output += buffer[..<count]
        }
        var status: Int32 = 0
        waitpid(child, &status, 0)
        return String(decoding: output, as: UTF8.self).split(whereSeparator: \.isWhitespace).first.map(String.init)
    }
}
