import DBus
import Foundation
import PeerHarness
import Testing

@Suite(.serialized)
struct DBusConnectionTests {
    @Test func getManagedObjectsDecodesAdaptersAndDevicesWithManufacturerData() async throws {
        let rig = try await BlueZTestRig()
        defer { rig.stop() }
        let connection = rig.connection
        try await rig.addAdapter()
        let payload: [UInt8] = [0x02, 0x15, 0xE2, 0xC5, 0x6D, 0xB5]
        try await rig.addDevice("C0:FF:EE:00:00:01", manufacturer: [DBusDictEntry(.uint16(0x004C), .variant(.bytes(payload)))], rssi: -61)

        let reply = try await connection.call(
            destination: "org.bluez", path: "/", interface: "org.freedesktop.DBus.ObjectManager", method: "GetManagedObjects")
        #expect(reply.first?.signature == "a{oa{sa{sv}}}")
        let objects = try #require(reply.first?.stringKeyed)
        let adapter = try #require(objects["/org/bluez/hci0"]?.stringKeyed?["org.bluez.Adapter1"]?.stringKeyed)
        #expect(adapter["Powered"]?.bool == true)
        let device = try #require(objects["/org/bluez/hci0/dev_C0_FF_EE_00_00_01"]?.stringKeyed?["org.bluez.Device1"]?.stringKeyed)
        #expect(device["RSSI"]?.int64 == -61)
        #expect(device["ManufacturerData"]?.unwrapped.signature == "a{qv}")
        #expect(device["ManufacturerData"]?.integerKeyed?[0x004C]?.bytes == payload)
    }

    @Test func signalsForAnAddedAndUpdatedDeviceArriveOnTheStream() async throws {
        let rig = try await BlueZTestRig()
        defer { rig.stop() }
        let connection = rig.connection
        try await rig.addAdapter()

        let added = try await connection.signals(matching: MatchRule(
            sender: "org.bluez", interface: "org.freedesktop.DBus.ObjectManager", member: "InterfacesAdded"))
        let changed = try await connection.signals(matching: MatchRule(
            sender: "org.bluez", interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged",
            pathNamespace: "/org/bluez"))

        try await rig.addDevice("C0:FF:EE:00:00:02", manufacturer: [DBusDictEntry(.uint16(0x0499), .variant(.bytes([5, 1, 2])))], rssi: -70)
        let addition = try await added.next(within: .seconds(20), "InterfacesAdded")
        let args = try addition.arguments()
        #expect(args.first == .objectPath("/org/bluez/hci0/dev_C0_FF_EE_00_00_02"))
        let device = try #require(args.last?.stringKeyed?["org.bluez.Device1"]?.stringKeyed)
        #expect(device["ManufacturerData"]?.integerKeyed?[0x0499]?.bytes == [5, 1, 2])

        // An RSSI-only update, as BlueZ sends when DuplicateData is on.
        try await rig.advertise("C0:FF:EE:00:00:02", rssi: -55)
        let update = try await changed.next(within: .seconds(20), "PropertiesChanged")
        #expect(update.path == "/org/bluez/hci0/dev_C0_FF_EE_00_00_02")
        let changes = try update.arguments()
        #expect(changes.first?.string == "org.bluez.Device1")
        #expect(changes[1].stringKeyed?["RSSI"]?.int64 == -55)
    }

    @Test func killingTheServiceProducesANameOwnerChange() async throws {
        let rig = try await BlueZTestRig()
        defer { rig.stop() }
        let owners = try await rig.connection.ownerChanges(of: "org.bluez")
        let first = try await owners.next(within: .seconds(20), "current owner")
        #expect(first?.hasPrefix(":") == true)
        rig.mock.process.kill(SIGKILL)
        let after = try await owners.next(within: .seconds(20), "NameOwnerChanged after kill")
        #expect(after == nil)
    }

    @Test func callingAnAbsentServiceThrowsServiceUnknown() async throws {
        let bus = try PrivateBus()
        defer { bus.remove() }
        let connection = try await DBusConnection.connect(address: bus.address)
        defer { connection.close() }

        await #expect(throws: DBusError.self) {
            _ = try await connection.call(destination: "org.bluez", path: "/", interface: "org.freedesktop.DBus.ObjectManager", method: "GetManagedObjects")
        }
        do {
            _ = try await connection.call(destination: "org.bluez", path: "/", interface: "org.freedesktop.DBus.ObjectManager", method: "GetManagedObjects")
        } catch {
            #expect(error.name == .serviceUnknown)
        }
    }

    @Test func aDenyingBusPolicyThrowsAccessDenied() async throws {
        let rig = try await BlueZTestRig(policy: .denyBlueZ)
        defer { rig.stop() }
        do {
            _ = try await rig.connection.call(destination: "org.bluez", path: "/", interface: "org.freedesktop.DBus.ObjectManager", method: "GetManagedObjects")
            Issue.record("the call went through a policy that denies it")
        } catch {
            #expect(error.name == .accessDenied)
            #expect(error.description.contains("AccessDenied"))
        }
    }

    @Test func anExportedObjectAnswersBusctl() async throws {
        let bus = try PrivateBus()
        defer { bus.remove() }
        let connection = try await DBusConnection.connect(address: bus.address)
        defer { connection.close() }
        let counter = Counter()
        try connection.export(DBusObject([
            DBusInterface("io.waymark.Test1", methods: [
                DBusMethod("Echo", input: "s", output: "s") { args in [.string("echo: " + (args[0].string ?? ""))] },
                DBusMethod("Bump", input: "u", output: "u") { args in
                    [.uint32(await counter.add(UInt32(args[0].int64 ?? 0)))]
                },
            ], properties: [
                DBusProperty("Count", signature: "u", get: { .uint32(await counter.value) }),
            ]),
        ]), at: "/io/waymark/Test")
        try await connection.requestName("io.waymark.Test")

        let echo = try runBusctl(bus, ["call", "io.waymark.Test", "/io/waymark/Test", "io.waymark.Test1", "Echo", "s", "hello"])
        #expect(echo == "s \"echo: hello\"")
        _ = try runBusctl(bus, ["call", "io.waymark.Test", "/io/waymark/Test", "io.waymark.Test1", "Bump", "u", "41"])
        let count = try runBusctl(bus, ["get-property", "io.waymark.Test", "/io/waymark/Test", "io.waymark.Test1", "Count"])
        #expect(count == "u 41")
        let introspection = try runBusctl(bus, ["introspect", "io.waymark.Test", "/io/waymark/Test"])
        #expect(introspection.contains(".Echo"))

        let wrong = try runBusctl(bus, ["call", "io.waymark.Test", "/io/waymark/Test", "io.waymark.Test1", "Echo", "u", "1"], expectFailure: true)
        #expect(wrong.contains("InvalidArgs") || wrong.contains("Invalid argument"))
    }

    /// A handler runs outside the connection's lock, so it may use its own
    /// connection: exporting an object takes that lock, and under it this
    /// deadlocked.
    @Test func aSignalHandlerMayUseItsOwnConnection() async throws {
        let peers = try await ServerAndClient.open()
        defer { peers.close() }
        let (server, client) = (peers.server, peers.client)
        let (handled, handledSink) = AsyncStream.makeStream(of: Bool.self)
        let subscription = try await server.subscribe(MatchRule(interface: "io.waymark.Test1", member: "Ping")) { _ in
            let exported = (try? server.export(DBusObject([
                DBusInterface("io.waymark.Test1", methods: [DBusMethod("Pong", output: "s") { _ in [.string("pong")] }]),
            ]), at: "/answer")) != nil
            handledSink.yield(exported)
        }
        defer { subscription.cancel() }
        try client.emit(path: "/ping", interface: "io.waymark.Test1", name: "Ping", arguments: [])
        #expect(try await handled.next(within: .seconds(20), "the handler") == true)
        let reply = try await client.call(destination: server.uniqueName, path: "/answer", interface: "io.waymark.Test1", method: "Pong")
        #expect(reply.first?.string == "pong")
    }

    /// Exports `/t` with `io.waymark.Test1.Hang`, which answers only after
    /// `delay`; `called` runs as each call arrives.
    private static func exportHang(on server: DBusConnection, answeringAfter delay: Duration, called: @escaping @Sendable () -> Void = {}) throws {
        try server.export(DBusObject([
            DBusInterface("io.waymark.Test1", methods: [
                DBusMethod("Hang") { _ in
                    called()
                    try await Task.sleep(for: delay)
                    return []
                },
            ]),
        ]), at: "/t")
    }

    @Test func aCallWithNoReplyTimesOut() async throws {
        let peers = try await ServerAndClient.open()
        defer { peers.close() }
        let (server, client) = (peers.server, peers.client)
        try Self.exportHang(on: server, answeringAfter: .seconds(5))

        let started = ContinuousClock.now
        do {
            _ = try await client.call(destination: server.uniqueName, path: "/t", interface: "io.waymark.Test1", method: "Hang", timeout: .milliseconds(200))
            Issue.record("a hanging call returned")
        } catch {
            #expect(error.name == .noReply)
        }
        #expect(ContinuousClock.now - started < .seconds(4))
    }

    @Test func closingTheConnectionEndsACallStillWaitingForItsReply() async throws {
        let peers = try await ServerAndClient.open()
        defer { peers.close() }
        let (server, client) = (peers.server, peers.client)
        let (arrivals, arrived) = AsyncStream.makeStream(of: Void.self)
        try Self.exportHang(on: server, answeringAfter: .seconds(60)) { arrived.yield() }
        // The outcome comes through a stream, so a call that never ends
        // fails the deadline below instead of hanging the suite.
        let (outcomes, outcome) = AsyncStream.makeStream(of: String.self)
        Task {
            do {
                _ = try await client.call(destination: server.uniqueName, path: "/t", interface: "io.waymark.Test1", method: "Hang", timeout: .seconds(60))
                outcome.yield("replied")
            } catch {
                outcome.yield("\(error)")
            }
        }
        try await arrivals.next(within: .seconds(20), "the call reaching the server")
        client.close()
        let ended = try await outcomes.next(within: .seconds(20), "the call ending on close")
        #expect(ended != "replied", "\(ended)")
    }

    @Test func closingTheConnectionFinishesSignalStreams() async throws {
        let bus = try PrivateBus()
        defer { bus.remove() }
        let connection = try await DBusConnection.connect(address: bus.address)
        let stream = try await connection.signals(matching: MatchRule(interface: "io.waymark.Nothing"))
        connection.close()
        let ended = try await withDeadline(.seconds(20), "stream end") {
            for await _ in stream {}
            return true
        }
        #expect(ended)
        await #expect(throws: DBusError.disconnected) {
            _ = try await connection.call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus", method: "GetId")
        }
    }

    private func runBusctl(_ bus: PrivateBus, _ arguments: [String], expectFailure: Bool = false) throws -> String {
        let log = bus.directory.file("busctl-\(UUID().uuidString).log")
        let process = try ChildProcess("busctl", ["--address=\(bus.address)"] + arguments, aptPackage: "systemd", logPath: log)
        let status = try process.wait(timeout: 10)
        let output = process.output.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect((status == 0) != expectFailure, "busctl \(arguments.joined(separator: " ")): \(output)")
        return output
    }
}

private actor Counter {
    var value: UInt32 = 0
    func add(_ n: UInt32) -> UInt32 {
        value &+= n
        return value
    }
}
