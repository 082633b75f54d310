import Foundation

/// A private system-type `dbus-daemon`, started with `--nofork` and stopped
/// by PID. Clients reach it through `DBUS_SYSTEM_BUS_ADDRESS=address`.
public final class PrivateBus: @unchecked Sendable {
    public enum Policy: Sendable, Equatable {
        /// Anybody may own any name and send anything.
        case allowAll
        /// As `allowAll`, but nobody may send to `org.bluez`.
        case denyBlueZ
        /// As `allowAll`, with at most this many match rules per connection
        /// (the bus refuses the next `AddMatch`, as a busy system bus does).
        case matchRuleLimit(Int)
    }

    public let directory: TemporaryDirectory
    public let address: String
    public let daemon: ChildProcess

    public init(policy: Policy = .allowAll) throws {
        directory = try TemporaryDirectory("waymark-bus")
        let socket = directory.file("system_bus_socket")
        let config = directory.file("bus.conf")
        try Self.config(socket: socket, policy: policy).write(toFile: config, atomically: true, encoding: .utf8)
        let stdout = Pipe()
        daemon = try ChildProcess(
            "dbus-daemon", ["--config-file=\(config)", "--nofork", "--nopidfile", "--print-address=1"],
            aptPackage: "dbus-daemon", logPath: directory.file("dbus-daemon.log"), stdout: stdout)
        // The daemon prints its address once it accepts connections.
        guard let line = try stdout.fileHandleForReading.readLine(timeout: 10) else {
            throw PeerError.startFailed("dbus-daemon", output: daemon.output)
        }
        address = line
    }

    deinit { stop() }

    /// The environment a client process needs to use this bus as its system bus.
    public var environment: [String: String] { ["DBUS_SYSTEM_BUS_ADDRESS": address] }

    public func stop() {
        daemon.stop()
    }

    /// Stops the daemon and removes its directory.
    public func remove() {
        stop()
        directory.remove()
    }

    static func config(socket: String, policy: Policy) -> String {
        let deny = policy == .denyBlueZ ? "    <deny send_destination=\"org.bluez\"/>\n" : ""
        let limit = if case .matchRuleLimit(let count) = policy { "  <limit name=\"max_match_rules_per_connection\">\(count)</limit>\n" } else { "" }
        return """
        <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
        <busconfig>
          <type>system</type>
          <listen>unix:path=\(socket)</listen>
          <auth>EXTERNAL</auth>
          <policy context="default">
            <allow user="*"/>
            <allow own="*"/>
            <allow send_destination="*" eavesdrop="true"/>
            <allow eavesdrop="true"/>
        \(deny)  </policy>
        \(limit)</busconfig>

        """
    }
}

extension FileHandle {
    /// Reads up to a newline, waiting at most `timeout` seconds in total.
    func readLine(timeout: TimeInterval) throws -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        var bytes: [UInt8] = []
        var pollfd = Glibc.pollfd(fd: fileDescriptor, events: Int16(POLLIN), revents: 0)
        while true {
            let remaining = Int32(max(0, deadline.timeIntervalSinceNow * 1000))
            guard remaining > 0, poll(&pollfd, 1, remaining) > 0 else { return nil }
            var byte: UInt8 = 0
            guard Glibc.read(fileDescriptor, &byte, 1) == 1 else { return nil }
            if byte == UInt8(ascii: "\n") { return String(decoding: bytes, as: UTF8.self) }
            bytes.append(byte)
        }
    }
}
