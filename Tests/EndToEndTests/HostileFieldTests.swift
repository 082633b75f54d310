import DBus
import Foundation
import PeerHarness
import Testing

/// `waymark run` end to end while the field misbehaves: the backend answers
/// with unusable `Retry-After` values and a captive portal's 200, and the
/// receiver sends lines of every length. The daemon stays up, and every
/// committed sample reaches the backend exactly once.
@Suite(.serialized)
struct HostileFieldTests {
    @Test func aHostileBackendAndANoisyReceiverLoseAndDuplicateNothing() async throws {
        let receiver = try PseudoTerminal()
        let car = try await RecordingRig(
            config: "[Recording]\nBeaconLostTimeout = 1s\nReopenWindow = 2s\nFixInterval = 200ms\nBeaconInterval = 500ms\n"
                + "[Upload]\nBatchSize = 5\nBatchAge = 1s\nRetryCap = 2s\n",
            gpsdRunning: false, pairVehicle: true, withReceiver: false, location: "nmea://\(receiver.path)?baud=9600")
        defer { car.stop() }
        let rig = car.session
        let faults = ["nan", "inf", "1e20", "-5"].map { #"{"kind":"503","retry_after":"\#($0)"}"# } + [#"{"kind":"portal"}"#, #"{"kind":"portal"}"#]
        try rig.backend.setFaults(#"{"queue":[\#(faults.joined(separator: ","))]}"#)
        let daemon = try await car.startDaemon()
        defer { daemon.stop() }
        try await RecordingRig.waitFor("recording: running", in: daemon)

        // Lines of every length up to 4 KiB behind valid prefixes, between fixes.
        let beacon = try await car.keepBeaconInSight()
        var second = 0
        func fix() -> String {
            second += 1
            return PseudoTerminal.sentence(String(format: "GPRMC,1200%02d.00,A,4813.0535,N,00824.8697,E,10.0,90.0,301126,,,A", second % 60))
        }
        for length in stride(from: 0, through: 4096, by: 1) {
            let prefix = ["$GPRMC,", "$GPGGA,120000.00,", "$", ""][length % 4]
            receiver.send(prefix + String(repeating: String(length % 10), count: max(0, length - prefix.count)) + "\r\n", waitForRoom: true)
            if length % 256 == 0 {
                receiver.send(fix(), waitForRoom: true)
                try await Task.sleep(for: .milliseconds(100))
            }
        }
        for _ in 0..<10 {
            receiver.send(fix(), waitForRoom: true)
            try await Task.sleep(for: .milliseconds(200))
        }
        beacon.cancel()
        try await RecordingRig.waitFor("ended", in: daemon)
        #expect(daemon.isRunning, "\(daemon.output.suffix(2000))")

        // Everything committed arrives, once, past every fault.
        try await withDeadline(.seconds(60), "the queue to drain") {
            while true {
                let queue = try rig.run(["queue", "--json"])
                let status = try JSONSerialization.jsonObject(with: Data(queue.output.utf8)) as? [String: Any]
                if status?["depth"] as? Int == 0, try rig.backend.summary().stored > 0 { return }
                try await Task.sleep(for: .milliseconds(250))
            }
        }
        let summary = try rig.backend.summary()
        #expect(summary.duplicates == 0 && summary.conflicts == 0, "\(summary)")
        #expect(try rig.backend.missing(upto: summary.max_seq).isEmpty, "every sequence number arrived")
        #expect((summary.kinds["fix"] ?? 0) >= 5 && (summary.kinds["beacon"] ?? 0) >= 2, "\(summary.kinds)")
        #expect(summary.posts >= faults.count + 1, "every fault was met")
        #expect(daemon.output.contains("ignoring Retry-After") && daemon.output.contains("text/html"), "\(daemon.output.suffix(3000))")
        daemon.kill(SIGTERM)
        #expect(try daemon.wait(timeout: 10) == 0)
    }
}
