import Basics
package import Command
import Config
import Control
import DBus
import FoundationEssentials
internal import Glibc
import Logging
import Storage
import Store

/// `events [--follow] [--json]`: the event log from the store, then (with
/// `--follow`) the daemon's `Event` signals as they come.
package enum EventCommands {
    package static let specs: [CommandSpec] = [
        CommandSpec(name: "events", summary: "Show recorded events (requirements, gaps, trips); --follow keeps listening to the daemon.",
                    details: "Requirements missing or lost while running, telemetry gaps, trips, radio and session events. --follow then prints the daemon's events as they happen; exit 69 when the system bus does not let it listen.", options: [
            OptionSpec(name: "--follow", help: "then print new events from the running daemon"),
            OptionSpec(name: "--json", help: "NDJSON, one event per line"),
        ], run: events),
    ]

    static func events(_ invocation: Invocation) async -> ExitCode {
        guard Configuration.load(for: invocation) != nil else { return .config }
        let json = invocation.flag("--json")
        func show(_ kind: String, _ time: Double, _ detail: String) {
            if json {
                print(#"{"time":"\#(CivilTime.iso8601(time))","kind":"\#(kind)","detail":\#(detail)}"#)
            } else {
                print("\(CivilTime.iso8601(time))  \(kind)  \(detail)")
            }
            fflush(nil)
        }
        var live: AsyncStream<DBusMessage>?
        var bus: DBusConnection?
        // Why --follow cannot follow: the stored events are still printed, then the command fails.
        var unfollowable: String?
        if invocation.flag("--follow") {
            // Subscribe first, so nothing falls between the stored and the live events.
            do {
                let system = try await DBusConnection.system()
                bus = system
                live = try await system.signals(matching: MatchRule(interface: ControlInterface.interface, member: "Event", path: ControlInterface.path))
            } catch {
                unfollowable = "\(error)"
            }
        }
        let database: Database?
        switch StoreAccess.open(invocation, for: "events", create: false) {
        case .store(let store): database = store.database
        case .absent: database = nil
        case .failed(let code): return code
        }
        do {
            let stored = try database?.read { connection in
                try connection.rows("SELECT time, kind, detail FROM event ORDER BY id") { ($0.real(0), $0.text(1) ?? "", $0.text(2) ?? "{}") }
            }
            for (time, kind, detail) in stored ?? [] { show(kind, time, detail) }
        } catch {
            Log.error("events: \(error)")
            return .ioError
        }
        defer { bus?.close() }
        if let unfollowable {
            Log.error("events: cannot follow the daemon's events on the system bus: \(unfollowable)")
            return .unavailable
        }
        guard let live else { return .ok }
        for await message in live {
            guard let arguments = try? message.arguments(), arguments.count == 2, let kind = arguments[0].string else { continue }
            show(kind, Date().timeIntervalSince1970, arguments[1].string ?? "{}")
        }
        return .ok
    }
}
