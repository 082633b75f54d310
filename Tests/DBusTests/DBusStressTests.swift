import DBus
import PeerHarness
import Testing

struct DBusStressTests {
    /// Connections opened and closed in a row reuse the same descriptor
    /// number; each new one must still hear its replies.
    @Test func everyReplyArrivesOnConnectionsOpenedAfterClosedOnes() async throws {
        let bus = try PrivateBus()
        defer { bus.remove() }
        let mock = try await BlueZMock(on: bus)
        defer { withExtendedLifetime(mock) {} }
        for round in 0..<1_000 {
            let connection = try await DBusConnection.connect(address: bus.address)
            defer { connection.close() }
            do {
                _ = try await connection.call(
                    destination: "org.bluez", path: "/", interface: "org.freedesktop.DBus.ObjectManager",
                    method: "GetManagedObjects", timeout: .seconds(3))
            } catch {
                Issue.record("connection \(round): \(error)")
                return
            }
        }
    }
}
