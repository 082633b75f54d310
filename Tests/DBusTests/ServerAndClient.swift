import DBus
import PeerHarness

/// Two connections to one private bus: one exports or listens, the other calls.
struct ServerAndClient {
    let bus: PrivateBus
    let server: DBusConnection
    let client: DBusConnection

    static func open() async throws -> ServerAndClient {
        let bus = try PrivateBus()
        do {
            return ServerAndClient(bus: bus, server: try await DBusConnection.connect(address: bus.address),
                                   client: try await DBusConnection.connect(address: bus.address))
        } catch {
            bus.remove()
            throw error
        }
    }

    /// Closes both connections, then removes the bus.
    func close() {
        client.close()
        server.close()
        bus.remove()
    }
}
