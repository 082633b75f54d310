import Control
import DBus
import Foundation
import PeerHarness
import Testing
import Vocabulary

/// The `Event` signal on a real dbus-daemon, as a subscriber sees it.
struct EventSignalTests {
    @Test func anEventGoesOutAsItsKindAndItsJSON() async throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        let daemon = try await DBusConnection.connect(address: bus.address)
        let listener = try await DBusConnection.connect(address: bus.address)
        let rule = MatchRule(interface: ControlInterface.interface, member: "Event", path: ControlInterface.path)
        let signals = try await listener.signals(matching: rule)

        ControlInterface.signal(Event(.tripStarted, [.tripID: "trip-7", .reason: "beacon \"car\" seen"]), on: daemon)
        let message = try await signals.next(within: .seconds(10), "the Event signal")
        let arguments = try message.arguments()
        #expect(arguments.first?.string == EventKind.tripStarted.rawValue)
        let json = try #require(arguments.dropFirst().first?.string)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        #expect(object["trip_id"] as? String == "trip-7" && object["reason"] as? String == #"beacon "car" seen"#, "\(json)")
    }
}
