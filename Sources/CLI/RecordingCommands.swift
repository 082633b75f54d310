import Basics
package import Command
import Config
import FoundationEssentials
import Logging
import Store
import Vocabulary

/// `start`, `stop` and `trips`.
package enum RecordingCommands {
    package static let specs: [CommandSpec] = [
        CommandSpec(name: "start", summary: "Arm recording (kept across restarts; login also arms).",
                    details: "The intent is kept in the store across restarts; a running daemon is told at once.") { await setIntent(.armed, $0) },
        CommandSpec(name: "stop", summary: "Disarm recording (kept across restarts; logout also disarms).",
                    details: "The intent is kept in the store across restarts; a running daemon is told at once.") { await setIntent(.disarmed, $0) },
        CommandSpec(name: "trips", summary: "List recorded trips.",
                    details: "Each trip's id, start, end, the number of positions kept and the track length through them (points, distance_meters), and why it ended.", options: [OptionSpec(name: "--json", help: "a JSON array")], run: trips),
    ]

    /// Stores the intent and tells a running daemon, which reconciles.
    static func setIntent(_ intent: RecordingIntent, _ invocation: Invocation) async -> ExitCode {
        guard Configuration.load(for: invocation) != nil else { return .config }
        let store: GatewayStore
        switch StoreAccess.open(invocation, for: intent == .armed ? "start" : "stop") {
        case .store(let opened): store = opened
        case .absent: return .software
        case .failed(let code): return code
        }
        do {
            try RecordingStore(database: store.database).setIntent(intent)
        } catch {
            Log.error("\(intent == .armed ? "start" : "stop"): \(error)")
            return .ioError
        }
        let told = await SessionCommands.tellDaemon(method: intent == .armed ? "Start" : "Stop")
        print("Recording \(intent.rawValue)\(told ? "." : "; the daemon picks it up when it starts.")")
        return .ok
    }

    static func trips(_ invocation: Invocation) async -> ExitCode {
        guard Configuration.load(for: invocation) != nil else { return .config }
        do {
            let trips: [StoredTrip]
            switch StoreAccess.open(invocation, for: "trips", create: false) {
            case .store(let store): trips = try RecordingStore(database: store.database).trips()
            case .absent: trips = []
            case .failed(let code): return code
            }
            if invocation.flag("--json") {
                print(String(decoding: try JSONEncoder.snakeCase.encode(trips), as: UTF8.self))
            } else if trips.isEmpty {
                print("No trips yet.")
            } else {
                for trip in trips {
                    let end = trip.end.map { CivilTime.iso8601($0.timeIntervalSince1970) } ?? "running"
                    let track = "\(trip.points) points, \((trip.distanceMeters / 10).rounded() / 100) km"
                    print("\(trip.id)  \(CivilTime.iso8601(trip.start.timeIntervalSince1970))  \(end)  \(track)\(trip.endReason.map { "  (\($0))" } ?? "")")
                }
            }
            return .ok
        } catch {
            Log.error("trips: \(error)")
            return .ioError
        }
    }
}
