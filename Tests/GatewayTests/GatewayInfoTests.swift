import Foundation
import Gateway
import PeerHarness
import Testing

/// The fleet sees what each gateway runs: a `gateway_info` sample at start
/// and whenever it changes.
struct GatewayInfoTests {
    @Test func theDaemonSendsWhatItRunsAtStartWithItsScanMode() async throws {
        let car = try await RecordingRig(config: "[Upload]\nBatchAge = 1s\n")
        defer { car.stop() }
        let daemon = try await car.startDaemon()
        defer { daemon.stop() }
        try await RecordingRig.waitFor("recording: running", in: daemon)
        let backend = car.session.backend
        try await withDeadline(.seconds(20), "gateway_info with the scan mode") {
            while try backend.samples(kind: "gateway_info").last?["scan_mode"] as? String == nil {
                try await Task.sleep(for: .milliseconds(100))
            }
        }
        let samples = try backend.samples(kind: "gateway_info")
        let system = Waymark.system
        let info = try #require(samples.last)
        #expect(info["version"] as? String == Waymark.version && info["scan_mode"] as? String == "active", "\(info)")
        #expect(info["architecture"] as? String == system.machine && info["kernel"] as? String == system.kernel, "\(info)")
        // The mock BlueZ is python-dbusmock, not bluetoothd; this machine did not install the package.
        #expect(info["bluez_version"] is NSNull && info["package_version"] is NSNull, "\(info)")
        // Armed at start, the scanner has chosen its mode: one sample, with it.
        #expect(samples.count == 1, "\(samples)")
    }

    @Test func thePackageVersionIsReadFromDpkgsStatusForAnInstalledPackageOnly() throws {
        let work = try TemporaryDirectory("waymark-dpkg")
        defer { work.remove() }
        let status = """
            Package: waymarker
            Status: install ok installed
            Version: 9.9

            Package: waymark
            Status: install ok installed
            Architecture: arm64
            Version: 0.1.0+git240.g1234567

            """
        try status.write(toFile: work.file("status"), atomically: true, encoding: .utf8)
        #expect(Waymark.packageVersion(status: work.file("status")) == "0.1.0+git240.g1234567")
        try status.replacingOccurrences(of: "install ok installed\nArchitecture", with: "deinstall ok config-files\nArchitecture")
            .write(toFile: work.file("removed"), atomically: true, encoding: .utf8)
        #expect(Waymark.packageVersion(status: work.file("removed")) == nil)
        #expect(Waymark.packageVersion(status: work.file("absent")) == nil)
    }
}
