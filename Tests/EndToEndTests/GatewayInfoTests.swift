import Basics
import Command
import Foundation
import PeerHarness
import Testing

/// The fleet sees what each gateway runs: a `gateway_info` sample at start
/// and whenever it changes.
struct GatewayInfoTests {
    @Test func theDaemonSendsWhatItRunsAtStartWithItsScanMode() async throws {
        let car = try await RecordingRig(config: "[Upload]\nBatchAge = 1s\n")
        defer { car.stop() }
        let daemon = try await car.startRecording()
        defer { daemon.stop() }
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

    /// The package writes its version beside the binary; a source install
    /// has none, and anything but one short printable line is not a version.
    @Test func thePackageVersionIsTheOneLineThePackageRecordsOrNone() throws {
        let work = try TemporaryDirectory("waymark-version")
        defer { work.remove() }
        func read(_ text: String) throws -> String? {
            try text.write(toFile: work.file("package-version"), atomically: true, encoding: .utf8)
            return Waymark.packageVersion(file: work.file("package-version"))
        }
        #expect(try read("0.1.0+git240.g1234567\n") == "0.1.0+git240.g1234567")
        #expect(Waymark.packageVersion(file: work.file("absent")) == nil)
        #expect(try read(String(repeating: "9", count: 255) + "\n") == String(repeating: "9", count: 255))
        #expect(try read(String(repeating: "9", count: 256)) == String(repeating: "9", count: 256))
        #expect(try read(String(repeating: "9", count: 4096)) == nil, "longer than a version")
        for bad in ["", "\n", "1.0\n2.0\n", "1.0 beta", "1.0\u{1B}[31m"] { #expect(try read(bad) == nil, "\(bad.debugDescription)") }
        // A link to it reads as its target: the package owns the path, not the reader.
        try FileManager.default.createSymbolicLink(atPath: work.file("link"), withDestinationPath: work.file("package-version"))
        _ = try read("2.0\n")
        #expect(Waymark.packageVersion(file: work.file("link")) == "2.0")
    }
}
