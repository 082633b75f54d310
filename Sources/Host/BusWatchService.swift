package import DBus
import Lifecycle
import Logging

/// Turns what other services announce on the system bus into wakes: BlueZ
/// coming or going and adapters changing, NetworkManager connecting, and
/// logind's suspend and resume. Subscribed at start, so that nothing
/// announced after the controller's first look is missed.
package struct BusWatchService: Service {
    package let name = "bus watch"
    let bus: DBusConnection
    let wake: AsyncStream<DaemonWake>.Continuation
    private let subscriptions = Subscriptions()

    package init(bus: DBusConnection, wake: AsyncStream<DaemonWake>.Continuation) {
        (self.bus, self.wake) = (bus, wake)
    }

    /// One loop per subscription, made at start and run by `run`.
    final class Subscriptions: @unchecked Sendable {
        // Written only in `start`, which the group finishes before `run` begins.
        var watchers: [@Sendable () async -> Void] = []
    }

    package func start() async {
        do {
            let owners = try await bus.ownerChanges(of: "org.bluez")
            let objects = try await bus.signals(matching: MatchRule(sender: "org.bluez", interface: "org.freedesktop.DBus.ObjectManager"))
            let adapters = try await bus.signals(matching: MatchRule(
                sender: "org.bluez", interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged",
                pathNamespace: "/org/bluez", arg0: "org.bluez.Adapter1"))
            let wake = wake
            subscriptions.watchers += [
                // The first answer is the current owner, not a change.
                { for await _ in owners.dropFirst() { wake.yield(.bluetoothChanged) } },
                { for await message in objects where Self.concernsAdapter(message) { wake.yield(.bluetoothChanged) } },
                // Powered only: Discovering flips with every discovery cycle,
                // and a look at every flip costs a GetManagedObjects of every
                // device bluetoothd holds, thousands in busy air.
                { for await message in adapters where Self.changesPower(message) { wake.yield(.bluetoothChanged) } },
            ]
        } catch {
            Log.warning("cannot watch BlueZ on the system bus: \(error)")
        }
        // NetworkManager reporting full connectivity (NM_STATE_CONNECTED_GLOBAL,
        // 70) after an outage: upload now instead of waiting out the backoff.
        await subscribe(MatchRule(sender: "org.freedesktop.NetworkManager", interface: "org.freedesktop.NetworkManager",
                                  member: "StateChanged", path: "/org/freedesktop/NetworkManager"), what: "NetworkManager") { arguments in
            guard case .uint32(let state)? = arguments.first, state >= 70 else { return nil }
            Log.info("network: connected; uploading")
            return .flush
        }
        // logind's PrepareForSleep: true before a suspend, false after the resume.
        await subscribe(MatchRule(sender: "org.freedesktop.login1", interface: "org.freedesktop.login1.Manager",
                                  member: "PrepareForSleep", path: "/org/freedesktop/login1"), what: "logind for suspend and resume") { arguments in
            arguments.first?.bool.map(DaemonWake.sleep)
        }
    }

    package func run() async {
        await withTaskGroup(of: Void.self) { group in
            for watcher in subscriptions.watchers { group.addTask(operation: watcher) }
        }
    }

    private func subscribe(_ rule: MatchRule, what: String, _ wakeFor: @escaping @Sendable ([DBusValue]) -> DaemonWake?) async {
        do {
            let signals = try await bus.signals(matching: rule)
            let wake = wake
            subscriptions.watchers.append {
                for await message in signals {
                    if let arguments = try? message.arguments(), let event = wakeFor(arguments) { wake.yield(event) }
                }
            }
        } catch {
            Log.warning("cannot watch \(what): \(error)")
        }
    }

    /// An adapter's PropertiesChanged that changes or invalidates `Powered`.
    static func changesPower(_ message: DBusMessage) -> Bool {
        guard let arguments = try? message.arguments(), arguments.count == 3 else { return false }
        return arguments[1].stringKeyed?["Powered"] != nil || arguments[2].array?.contains(.string("Powered")) == true
    }

    /// InterfacesAdded/Removed for an adapter, not for one of its many devices.
    private static func concernsAdapter(_ message: DBusMessage) -> Bool {
        guard let arguments = try? message.arguments(), arguments.count == 2 else { return false }
        switch message.member {
        case "InterfacesAdded": return arguments[1].stringKeyed?["org.bluez.Adapter1"] != nil
        case "InterfacesRemoved": return arguments[1].array?.contains(.string("org.bluez.Adapter1")) == true
        default: return false
        }
    }
}
