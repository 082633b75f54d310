import Foundation
import PeerHarness
import Testing

/// `waymark doctor` against the real peers: all green, then gpsd gone.
struct DoctorTests {
    @Test func doctorPassesWithEveryPeerUpAndNamesTheFixWhenGpsdIsGone() async throws {
        let car = try await RecordingRig()
        defer { car.stop() }
        let environment = car.bluez.bus.environment
        let healthy = try car.session.run(["doctor", "--json"], environment: environment)
        // stdout and stderr share the log: the report is the line of JSON.
        let report = try #require(healthy.output.split(separator: "\n").first { $0.hasPrefix("{") }, "\(healthy.output)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(report.utf8)) as? [String: [[String: Any]]])
        let checks = try #require(json["checks"])
        let failing = checks.filter { $0["ok"] as? Bool != true }.map { "\($0["area"] ?? "")/\($0["name"] ?? ""): \($0["detail"] ?? "")" }
        #expect(healthy.status == 0 && failing.isEmpty, "\(failing)")
        let areas = Set(checks.compactMap { $0["area"] as? String })
        #expect(areas == ["bluetooth", "location", "store", "session", "network", "system"])
        // The mock is python-dbusmock, and the doctor says so rather than a version.
        let service = checks.first { $0["name"] as? String == "bluetoothd-version" }
        #expect((service?["detail"] as? String)?.contains("not bluetoothd") == true, "\(String(describing: service))")

        car.gpsd?.stop()
        let broken = try car.session.run(["doctor"], environment: environment)
        #expect(broken.status == 1)
        #expect(broken.output.contains("FAIL  location: reachable"))
        #expect(broken.output.contains("fix: the location source is unreachable"))
    }
}
