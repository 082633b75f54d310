public import DBus
import Foundation

/// python-dbusmock's `logind` template on a private bus, to send the
/// `PrepareForSleep` signals of a suspend and resume.
public final class LogindMock: @unchecked Sendable {
    public let process: ChildProcess

    public init(on bus: PrivateBus) async throws {
        process = try await BlueZMock.start(template: "logind", owning: "org.freedesktop.login1", on: bus, log: "logind-mock")
    }

    deinit { process.stop() }

    /// The locks logind holds (`ListInhibitors`): what, who, why, mode, uid, pid each.
    public func inhibitors(via connection: DBusConnection) async throws -> [DBusValue] {
        try await connection.call(destination: "org.freedesktop.login1", path: "/org/freedesktop/login1",
                                  interface: "org.freedesktop.login1.Manager", method: "ListInhibitors").first?.array ?? []
    }

    /// `PrepareForSleep(start)`: true before the system sleeps, false after it wakes.
    public func prepareForSleep(_ start: Bool, via connection: DBusConnection) async throws {
        _ = try await connection.call(
            destination: "org.freedesktop.login1", path: "/org/freedesktop/login1", interface: "org.freedesktop.DBus.Mock",
            method: "EmitSignal",
            arguments: [.string("org.freedesktop.login1.Manager"), .string("PrepareForSleep"), .string("b"),
                        .array(element: "v", [.variant(.bool(start))])])
    }
}
