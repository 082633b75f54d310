import Basics
package import Command
import Config
import FoundationEssentials
import Logging
import Store
import Upload

/// `queue`, `queue retry-dead` and `queue flush`.
package enum QueueCommands {
    package static let specs: [CommandSpec] = [
        CommandSpec(name: "queue", summary: "Show the upload queue; `queue retry-dead` requeues dead letters, `queue flush` asks the daemon to upload now.",
                    details: "Depth, oldest sample, bytes, last success and last error, dead letters. `queue retry-dead` puts dead-lettered samples back in the queue with new sequence numbers and asks the daemon to flush; `queue flush` asks the running daemon to upload now (exit 69 when no daemon answers).",
                    arguments: "[retry-dead|flush]", options: [OptionSpec(name: "--json", help: "one JSON object")], run: queue),
    ]

    static func queue(_ invocation: Invocation) async -> ExitCode {
        guard Configuration.load(for: invocation) != nil else { return .config }
        if let action = invocation.arguments.first, !["retry-dead", "flush"].contains(action) {
            Log.error("queue: unknown action \(action.debugDescription); use retry-dead or flush")
            return .usage
        }
        if invocation.arguments.first == "flush" {
            guard await SessionCommands.tellDaemon(method: "Flush") else {
                Log.error("queue flush: the daemon is not running; it flushes by itself when it starts")
                return .unavailable
            }
            print("Asked the daemon to upload now.")
            return .ok
        }
        let outbox: Outbox
        switch StoreAccess.open(invocation, for: "queue", create: false) {
        case .store(let store): outbox = Outbox(database: store.database)
        case .absent where invocation.arguments.isEmpty:
            if invocation.flag("--json") { JSONEncoder.snakeCase.printLine(QueueStatus.empty) } else { print(text(.empty)) }
            return .ok
        case .absent:
            print("Requeued 0 samples from the dead letters.")
            return .ok
        case .failed(let code): return code
        }
        switch invocation.arguments.first {
        case nil:
            do {
                let status = try outbox.status()
                if invocation.flag("--json") {
                    JSONEncoder.snakeCase.printLine(status)
                } else {
                    print(text(status))
                }
                return .ok
            } catch {
                Log.error("queue: \(error)")
                return .ioError
            }
        case "retry-dead":
            do {
                let count = try outbox.retryDeadLetters()
                print("Requeued \(count) samples from the dead letters.")
                await SessionCommands.tellDaemon(method: "Flush")
                return .ok
            } catch {
                Log.error("queue retry-dead: \(error)")
                return .ioError
            }
        default:
            return .usage
        }
    }

    static func text(_ status: QueueStatus) -> String {
        var lines = ["queued:       \(status.depth) samples, \(status.bytes) bytes"]
        if let oldest = status.oldest { lines.append("oldest:       \(CivilTime.iso8601(oldest))") }
        lines.append("last upload:  " + (status.lastSuccess.map(CivilTime.iso8601) ?? "never"))
        if let error = status.lastError { lines.append("last error:   \(error)") }
        lines.append("dead letters: \(status.deadLetters)\(status.deadLetters > 0 ? " (waymark queue retry-dead requeues them)" : "")")
        return lines.joined(separator: "\n")
    }
}
