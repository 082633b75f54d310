public import DBus

/// A private bus with the BlueZ mock, and a client connection to it.
public struct BlueZTestRig: Sendable {
    public let bus: PrivateBus
    public var mock: BlueZMock
    public let connection: DBusConnection

    public init(policy: PrivateBus.Policy = .allowAll) async throws {
        bus = try PrivateBus(policy: policy)
        mock = try await BlueZMock(on: bus)
        connection = try await DBusConnection.connect(address: bus.address)
    }

    public func stop() {
        connection.close()
        mock.process.stop()
        bus.remove()
    }

    public mutating func restartMock() async throws {
        mock = try await BlueZMock(on: bus, name: "bluez-mock-2")
    }

    public func addAdapter() async throws {
        try await mock.control(connection, "AddAdapter", [.string("hci0"), .string("car")])
    }

    /// Gives hci0 advertisement monitors, as `bluetoothd --experimental` does.
    public func offerMonitors() async throws {
        try await mock.control(connection, interface: "io.waymark.BlueZMock", "OfferMonitors", [.string("hci0")])
    }

    /// BlueZ methods the mock has seen called on `path`.
    public func calls(_ method: String, on path: String = "/org/bluez/hci0") async throws -> [DBusValue] {
        let reply = try await connection.call(
            destination: "org.bluez", path: path, interface: "org.freedesktop.DBus.Mock", method: "GetMethodCalls",
            arguments: [.string(method)])
        return reply.first?.array ?? []
    }

    public func setPowered(_ on: Bool) async throws {
        _ = try await connection.call(
            destination: "org.bluez", path: "/org/bluez/hci0", interface: "org.freedesktop.DBus.Properties", method: "Set",
            arguments: [.string("org.bluez.Adapter1"), .string("Powered"), .variant(.bool(on))])
    }

    public func isDiscovering() async throws -> Bool {
        let reply = try await connection.call(
            destination: "org.bluez", path: "/org/bluez/hci0", interface: "org.freedesktop.DBus.Properties", method: "Get",
            arguments: [.string("org.bluez.Adapter1"), .string("Discovering")])
        return reply.first?.bool == true
    }

    public func addDevice(_ address: String, manufacturer: [DBusDictEntry] = [], service: [DBusDictEntry] = [], rssi: Int16 = -60) async throws {
        try await mock.control(connection, interface: "io.waymark.BlueZMock", "AddAdvertisingDevice", [
            .string("hci0"), .string(address), .string("tag"),
            .dictionary(key: "q", value: "v", manufacturer), .dictionary(key: "s", value: "v", service), .int16(rssi),
        ])
    }

    public func advertise(_ address: String, manufacturer: [DBusDictEntry] = [], service: [DBusDictEntry] = [], rssi: Int16) async throws {
        try await mock.control(connection, interface: "io.waymark.BlueZMock", "Advertise", [
            .objectPath("/org/bluez/hci0/dev_" + address.split(separator: ":").joined(separator: "_")),
            .dictionary(key: "q", value: "v", manufacturer), .dictionary(key: "s", value: "v", service), .int16(rssi),
        ])
    }
}
