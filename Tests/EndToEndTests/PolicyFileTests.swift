import Foundation
import PeerHarness
import Testing

/// The D-Bus policy in `hardware/` loaded by a real dbus-daemon: the file
/// parses, and it is what the daemon needs.
struct PolicyFileTests {
    @Test func thePolicyFileIsValidForDbusDaemonAndLimitsTheName() throws {
        let policy = Checkout.path("hardware/io.waymark.Gateway1.conf")
        let text = try String(contentsOfFile: policy, encoding: .utf8)
        #expect(text.contains(#"<policy user="waymark">"#) && text.contains(#"<allow own="io.waymark.Gateway1"/>"#))
        #expect(text.contains(#"<deny send_destination="io.waymark.Gateway1"/>"#))
        let work = try TemporaryDirectory()
        defer { work.remove() }
        // A bus whose configuration includes the policy: dbus-daemon refuses to start on a malformed file.
        let config = """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-BUS Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>system</type>
              <listen>unix:path=\(work.file("bus"))</listen>
              <auth>EXTERNAL</auth>
              <policy context="default"><allow user="*"/><allow own="*"/><allow send_type="method_call"/></policy>
              <include>\(policy)</include>
            </busconfig>
            """
        try config.write(toFile: work.file("bus.conf"), atomically: true, encoding: .utf8)
        let check = try ChildProcess("dbus-daemon", ["--config-file=\(work.file("bus.conf"))", "--nofork", "--print-address=1"],
                                     aptPackage: "dbus-daemon", logPath: work.file("dbus.log"))
        defer { check.stop() }
        try UnixSocketPath.wait(work.file("bus"), process: check)
        #expect(check.isRunning, "\(check.output)")
    }
}

/// Waits for a unix socket path to appear, failing if the process exits.
enum UnixSocketPath {
    static func wait(_ path: String, process: ChildProcess, timeout: TimeInterval = 10) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while !FileManager.default.fileExists(atPath: path) {
            guard process.isRunning else { throw PeerError.startFailed("dbus-daemon", output: process.output) }
            guard Date() < deadline else { throw PeerError.timedOut("\(path)") }
            usleep(10_000)
        }
    }
}
