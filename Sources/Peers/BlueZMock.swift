public import DBus
import Foundation

/// python-dbusmock's `bluez5` template, extended by `waymark_bluez.py`, owning
/// `org.bluez` on a private bus.
public final class BlueZMock: @unchecked Sendable {
    public let process: ChildProcess
    public let bus: PrivateBus

    /// Starts the mock and waits until it owns `org.bluez`.
    public init(on bus: PrivateBus, name: String = "bluez-mock") async throws {
        self.bus = bus
        process = try await Self.start(template: Self.templatePath, owning: "org.bluez", on: bus, log: name)
    }

    deinit { process.stop() }

    public static var templatePath: String { PeerTemplates.path("waymark_bluez.py") }

    /// `python3 -m dbusmock --template TEMPLATE` on `bus`, once it owns `name`.
    public static func start(template: String, owning name: String, on bus: PrivateBus, log: String) async throws -> ChildProcess {
        let process = try ChildProcess(
            "/usr/bin/python3", ["-m", "dbusmock", "--template", template],
            aptPackage: "python3-dbusmock", environment: bus.environment, logPath: bus.directory.file("\(log).log"))
        try await waitForOwner(name, on: bus, process: process)
        return process
    }

    /// Waits until `name` has an owner on `bus`, failing early if the process dies.
    public static func waitForOwner(_ name: String, on bus: PrivateBus, process: ChildProcess, timeout: Duration = .seconds(15)) async throws {
        let connection = try await DBusConnection.connect(address: bus.address)
        defer { connection.close() }
        let deadline = ContinuousClock.now + timeout
        let owners = try await connection.ownerChanges(of: name)
        let watcher = Task {
            for await owner in owners where owner != nil { return true }
            return false
        }
        while ContinuousClock.now < deadline {
            if try await withThrowingTaskGroup(of: Bool.self, body: { group in
                group.addTask { await watcher.value }
                group.addTask { try await Task.sleep(for: .milliseconds(50)); return false }
                let first = try await group.next() ?? false
                group.cancelAll()
                return first
            }) { return }
            guard process.isRunning else { throw PeerError.startFailed(process.program, output: process.output) }
        }
        watcher.cancel()
        throw PeerError.timedOut("\(name) on the private bus; \(process.program) said: \(process.output.suffix(2000))")
    }

    /// Calls a method on the mock's control interfaces through `connection`.
    @discardableResult
    public func control(
        _ connection: DBusConnection, path: String = "/", interface: String = "org.bluez.Mock",
        _ method: String, _ arguments: [DBusValue] = []
    ) async throws -> [DBusValue] {
        try await connection.call(destination: "org.bluez", path: path, interface: interface, method: method, arguments: arguments)
    }
}
