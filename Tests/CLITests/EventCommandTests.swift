import Foundation
import PeerHarness
import Testing

/// `waymark events --follow` that cannot listen says so and fails, after
/// the stored events: a follower that silently follows nothing is a lie.
struct EventCommandTests {
    @Test func followingWithNoSystemBusFailsWithExit69AfterTheStoredEvents() throws {
        let work = try TemporaryDirectory()
        defer { work.remove() }
        let result = try WaymarkBinary.run(
            ["--config", "/dev/null", "--data-dir", work.file("data"), "events", "--follow"],
            environment: ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=\(work.file("no-bus"))"], in: work)
        #expect(result.status == 69, "\(result.output)")
        #expect(result.output.contains("events: cannot follow the daemon's events on the system bus"), "\(result.output)")
    }

    @Test func aBusThatRefusesTheSubscriptionFailsTheFollowToo() async throws {
        let bus = try PrivateBus(policy: .matchRuleLimit(0))
        defer { bus.stop() }
        let work = try TemporaryDirectory()
        defer { work.remove() }
        let result = try WaymarkBinary.run(
            ["--config", "/dev/null", "--data-dir", work.file("data"), "events", "--follow"],
            environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address], in: work)
        #expect(result.status == 69, "\(result.output)")
        #expect(result.output.contains("LimitsExceeded"), "\(result.output)")
    }
}
