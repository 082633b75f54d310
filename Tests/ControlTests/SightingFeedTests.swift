import Control
import DBus
import PeerHarness
import Radio
import Testing
import Vocabulary

/// The daemon's sightings as `scan` beside it reads them: on a real
/// dbus-daemon, to the watcher alone, and decoded from hostile signals
/// without trusting what does not fit.
struct SightingFeedTests {
    static let tag = Sighting(
        address: BluetoothAddress("C0:FF:EE:00:00:09", kind: .random)!, rssi: -67, txPower: 4, name: "Ruuvi 0009",
        manufacturerData: [0x0499: [5, 0x12, 0xFC], 0x004C: [2, 0x15]], serviceData: ["fcd2": [0x40, 0x01, 0x5D]], paired: true,
        uptimeNanoseconds: 1)

    @Test func aWatcherGetsEverySightingWhole() async throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        let daemon = try await DBusConnection.connect(address: bus.address)
        let watcher = try await DBusConnection.connect(address: bus.address)
        let bystander = try await DBusConnection.connect(address: bus.address)
        let rule = MatchRule(interface: ControlInterface.interface, member: SightingSignal.member, path: ControlInterface.path)
        let received = try await watcher.signals(matching: rule)
        // The bystander takes every signal of the interface, sightings and events.
        let overheard = try await bystander.signals(matching: MatchRule(interface: ControlInterface.interface, path: ControlInterface.path))
        let feed = SightingFeed(bus: daemon)
        defer { feed.close() }

        feed.publish(Self.tag)
        try feed.watch(watcher.uniqueName)
        feed.publish(Self.tag)
        let message = try await received.next(within: .seconds(10), "the Sighting signal")
        let decoded = try #require(SightingSignal.sighting(message, uptimeNanoseconds: 1))
        #expect(decoded == Self.tag)
        // Addressed to the watcher: the bystander's first signal is the event
        // broadcast after the sightings (one sender's messages keep their order).
        ControlInterface.signal(Event(.stopped), on: daemon)
        let first = try await overheard.next(within: .seconds(10), "the event broadcast after the sightings")
        #expect(first.member == "Event")

        // Unwatched, the next sighting is not sent: the event after it is the watcher's next signal.
        feed.unwatch(watcher.uniqueName)
        feed.publish(Self.tag)
        let events = try await watcher.signals(matching: MatchRule(interface: ControlInterface.interface, path: ControlInterface.path))
        ControlInterface.signal(Event(.stopped), on: daemon)
        #expect(try await events.next(within: .seconds(10), "the event after the last sighting").member == "Event")
    }

    /// Every property swapped for every other type, and numbers beyond their
    /// property's range: the address decides, the rest is left out when it does not fit.
    @Test func aSignalWhosePropertiesDoNotFitIsDecodedWithoutThem() throws {
        let valid = try #require(SightingSignal.arguments(Self.tag).first?.stringKeyed)
        let wrongs: [DBusValue] = [
            .string("C0:FF:EE:00:00:0A"), .int64(Int64.max), .int32(-40), .uint64(UInt64.max), .bool(true), .bytes([1, 2, 3]),
            .double(.nan), .objectPath("/x"), .array(element: "s", [.string("a")]),
            .dictionary(key: "s", value: "v", [DBusDictEntry(.string("not a uuid"), .variant(.bytes([1])))]),
            .dictionary(key: "q", value: "v", [DBusDictEntry(.uint16(1), .variant(.string("no bytes")))]),
            .dictionary(key: "x", value: "v", [DBusDictEntry(.int64(70_000), .variant(.bytes([1])))]),
        ]
        for key in valid.keys.sorted() {
            for wrong in wrongs {
                var properties = valid.mapValues { $0.unwrapped }
                properties[key] = wrong
                let message = try DBusMessage.signal(path: ControlInterface.path, interface: ControlInterface.interface, name: SightingSignal.member,
                                                     arguments: [.vardict(properties)])
                let decoded = SightingSignal.sighting(message, uptimeNanoseconds: 1)
                if key == "Address" {
                    #expect((decoded?.address.description == "C0:FF:EE:00:00:0A") == (wrong == .string("C0:FF:EE:00:00:0A")), "\(wrong)")
                    continue
                }
                let sighting = try #require(decoded, "\(key) = \(wrong)")
                #expect(sighting.address.value == Self.tag.address.value)
                #expect(sighting.rssi.map { (-32768...32767).contains($0) } ?? true && sighting.txPower.map { (-32768...32767).contains($0) } ?? true)
                #expect(sighting.manufacturerData.count <= 2 && sighting.serviceData.count <= 1, "\(key) = \(wrong): \(sighting)")
            }
        }
        // Any signature but a{sv} is no sighting.
        for arguments: [DBusValue] in [[], [.string("C0:FF:EE:00:00:09")], [.vardict(valid), .string("more")]] {
            let message = try DBusMessage.signal(path: ControlInterface.path, interface: ControlInterface.interface, name: SightingSignal.member, arguments: arguments)
            #expect(SightingSignal.sighting(message, uptimeNanoseconds: 1) == nil)
        }
    }
}
