import Foundation
import PeerHarness
import Testing

/// What systemd and an idle car see of `waymark run`.
@Suite(.serialized)
struct DaemonLifecycleTests {
    /// A datagram socket standing in for systemd's `$NOTIFY_SOCKET`.
    final class NotifySocket: @unchecked Sendable {
        let path: String
        let fd: Int32

        init(_ path: String) throws {
            self.path = path
            fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { buffer in
                for (index, byte) in path.utf8.enumerated() { buffer[index] = byte }
            }
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) == 0 }
            }
            guard bound else { throw PeerError.startFailed("a notify socket", output: String(cString: strerror(errno))) }
            var timeout = timeval(tv_sec: 10, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        }

        deinit { close(fd) }

        func next() -> String? {
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = recv(fd, &buffer, buffer.count, 0)
            return count > 0 ? String(decoding: buffer[..<count], as: UTF8.self) : nil
        }
    }

    @Test func theDaemonTellsSystemdItIsReadyAndPingsTheWatchdog() async throws {
        let work = try TemporaryDirectory()
        defer { work.remove() }
        let bus = try PrivateBus()
        defer { bus.stop() }
        let notify = try NotifySocket(work.file("notify.sock"))
        try "[Location]\nSource = gpsd://127.0.0.1:1\n".write(toFile: work.file("w.conf"), atomically: true, encoding: .utf8)
        let daemon = try ChildProcess(try WaymarkBinary.path, ["run", "--config", work.file("w.conf"), "--data-dir", work.file("data")],
                                      aptPackage: "(built by swift build)",
                                      environment: bus.environment.merging(["NOTIFY_SOCKET": notify.path, "WATCHDOG_USEC": "200000"]) { $1 },
                                      logPath: work.file("run.log"))
        defer { daemon.stop() }
        var messages: [String] = []
        while messages.filter({ $0 == "WATCHDOG=1" }).count < 3, let message = notify.next() { messages.append(message) }
        #expect(messages.first?.hasPrefix("READY=1") == true)
        #expect(messages.filter { $0 == "WATCHDOG=1" }.count >= 3)
        daemon.kill(SIGTERM)
        #expect(try daemon.wait(timeout: 5) == 0)
        #expect(notify.next()?.hasPrefix("STOPPING=1") == true)
    }

    /// Armed and running with no beacon in range and no receiver behind
    /// gpsd, so nothing to do but a radio health report every 2 s (with the
    /// default 30 s `BatchAge`): (almost) no CPU, and each report recorded
    /// and sent on its own timer's wake-up, not on a batch timer's later.
    /// Measured from /proc/PID/stat.
    @Test func anIdleArmedGatewayUsesNoCPUBeyondOneWakeUpPerHealthReport() async throws {
        let car = try await RecordingRig(config: "[Bluetooth]\nHealthInterval = 2s\n", withReceiver: false)
        defer { car.stop() }
        let daemon = try await car.startDaemon()
        defer { daemon.stop() }
        try await RecordingRig.waitFor("recording: running", in: daemon)
        try await Task.sleep(for: .seconds(1))
        let backend = car.session.backend
        let before = try Self.cpuTicks(of: daemon.pid), reportsBefore = try backend.samples(kind: "radio_health").count
        try await Task.sleep(for: .seconds(10))
        let used = try Self.cpuTicks(of: daemon.pid) - before
        let reports = try backend.samples(kind: "radio_health").count - reportsBefore
        #expect((4...6).contains(reports), "\(reports) reports uploaded in 10 s at one per 2 s: \(daemon.output.suffix(2000))")
        // The configured timers here (the gpsd probe every 10 s, the scan
        // watchdog every 60 s, the reports) cost microseconds; a polling loop would not.
        #expect(used <= 5, "\(used) ticks of CPU in 10 s with \(reports) reports")
        daemon.kill(SIGTERM)
        #expect(try daemon.wait(timeout: 5) == 0)
    }

    /// utime and stime of process `pid` so far, in clock ticks.
    static func cpuTicks(of pid: Int32) throws -> Int {
        let stat = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
        let fields = stat[stat.range(of: ")")!.upperBound...].split(separator: " ")
        return Int(fields[11])! + Int(fields[12])!
    }
}
