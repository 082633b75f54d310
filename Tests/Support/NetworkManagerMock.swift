public import DBus
import Foundation

/// python-dbusmock's `networkmanager` template on a private bus, to announce
/// connectivity coming and going.
public final class NetworkManagerMock: @unchecked Sendable {
    public let process: ChildProcess

    public init(on bus: PrivateBus) async throws {
        process = try await BlueZMock.start(template: "networkmanager", owning: "org.freedesktop.NetworkManager", on: bus, log: "networkmanager-mock")
    }

    deinit { process.stop() }

    /// Sets NetworkManager's global state (70: connected with full connectivity) and emits `StateChanged`.
    public func setState(_ state: UInt32, via connection: DBusConnection) async throws {
        _ = try await connection.call(
            destination: "org.freedesktop.NetworkManager", path: "/org/freedesktop/NetworkManager",
            interface: "org.freedesktop.DBus.Mock", method: "SetGlobalConnectionState", arguments: [.uint32(state)])
    }
}
