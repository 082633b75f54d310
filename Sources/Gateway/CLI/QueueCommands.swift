import Basics
import FoundationEssentials
import Logging
import Location
import Upload

/// `queue`, `queue retry-dead` and `queue flush`.
enum QueueCommands {
    static let specs: [CommandSpec] = [
        CommandSpec(name: "queue", summary: "Show the upload queue; `queue retry-dead` requeues dead letters, `queue flush` asks the daemon to upload now.",
                    arguments: "[retry-dead|flush]", options: [OptionSpec(name: "--json", help: "one JSON object")], run: queue),
    ]

    static func queue(_ invocation: Invocation) async -> ExitCode {
        guard WaymarkCLI.loadConfiguration(invocation) != nil else { return .config }
        let outbox: Outbox
        do {
            outbox = Outbox(database: try GatewayStore(path: invocation.storePath).database)
        } catch {
            Log.error("queue: \(error)")
            return .ioError
        }
        switch invocation.arguments.first {
        case nil:
            do {
                let status = try outbox.status()
                if invocation.flag("--json") {
                    print(String(decoding: (try? JSONEncoder.snakeCase.encode(status)) ?? Data(), as: UTF8.self))
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
        case "flush":
            guard await SessionCommands.tellDaemon(method: "Flush") else {
                Log.error("queue flush: the daemon is not running; it flushes by itself when it starts")
                return .unavailable
            }
            print("Asked the daemon to upload now.")
            return .ok
        case let other?:
            Log.error("queue: unknown action \(other.debugDescription); use retry-dead or flush")
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
