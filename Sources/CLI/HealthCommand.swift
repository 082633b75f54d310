import Basics
package import Command
import Config
import Control
import DBus
import FoundationEssentials
import Vocabulary

/// `waymark health [--json]`: the one question a fleet's update tool asks
/// (greenboot, Mender, RAUC): is this boot healthy? It asks the running
/// daemon over its control interface and judges the answer against
/// `[Health]`. Exit 0 when healthy, else the code of the first problem
/// (`ExitCode.unhealthyDaemon` … `unhealthyQueue`, 10 to 14).
package enum HealthCommand {
    package static let specs: [CommandSpec] = [
        CommandSpec(name: "health", summary: "Exit 0 if this gateway is healthy (for fleet update tools), else a code naming the first problem: 10 daemon, 11 store, 12 session, 13 radio, 14 queue.",
                    details: "One line: healthy, or unhealthy and the first problem. --json gives the verdict, the daemon's facts and the thresholds.",
                    options: [OptionSpec(name: "--json", help: "the verdict, the daemon's facts and the thresholds as one JSON object")], run: run),
    ]

    struct Report: Encodable {
        var healthy: Bool
        var code: Int32
        var reason: String
        var facts: HealthFacts?
        var advertSilenceSeconds: Int64
        var queueAgeSeconds: Int64
    }

    static func run(_ invocation: Invocation) async -> ExitCode {
        guard let configuration = Configuration.load(for: invocation) else { return .config }
        let answer = await ask()
        let (verdict, reason) = judge(answer, configuration.health)
        if invocation.flag("--json") {
            let facts: HealthFacts? = if case .success(let facts) = answer { facts } else { nil }
            let report = Report(healthy: verdict == .ok, code: verdict.rawValue, reason: reason, facts: facts,
                                advertSilenceSeconds: configuration.health.advertSilence.components.seconds,
                                queueAgeSeconds: configuration.health.queueAge.components.seconds)
            JSONEncoder.snakeCase.printLine(report)
        } else {
            print(verdict == .ok ? "healthy" : "unhealthy: \(reason)")
        }
        return verdict
    }

    /// The daemon's facts, or why it did not give them.
    static func ask() async -> Result<HealthFacts, DaemonUnreachable> {
        let bus: DBusConnection
        do { bus = try await DBusConnection.system() } catch { return .failure(.noSystemBus("\(error)")) }
        defer { bus.close() }
        do {
            // The store's quick check reads the whole store: seconds for a large queue on an SD card.
            let reply = try await bus.call(destination: ControlInterface.busName, path: ControlInterface.path,
                                           interface: ControlInterface.interface, method: "Health", timeout: .seconds(60))
            guard let value = reply.first else { return .failure(.failed("the Health reply holds no facts")) }
            return .success(HealthFacts(dbus: value))
        } catch {
            return .failure(DaemonUnreachable(error))
        }
    }

    /// The first problem, in the order a fix would take them, and its one line.
    static func judge(_ answer: Result<HealthFacts, DaemonUnreachable>, _ limits: Configuration.Health) -> (ExitCode, String) {
        let facts: HealthFacts
        switch answer {
        case .success(let answered): facts = answered
        case .failure(let unreachable): return (.unhealthyDaemon, "daemon: \(unreachable)")
        }
        guard facts.ready else { return (.unhealthyDaemon, "daemon: running but not ready yet") }
        guard facts.storeWritable else { return (.unhealthyStore, "store: a write failed: \(facts.storeProblem)") }
        guard facts.integrity == "ok" else { return (.unhealthyStore, "store: the quick check failed: \(facts.integrity)") }
        guard facts.authorized else { return (.unhealthySession, "session: not authorized: waymark login") }
        if facts.armed {
            let radio = [Requirement.systemBus, .bluetoothService, .bluetoothAccess, .bluetoothAdapter, .adapterPowered]
            if let missing = radio.first(where: facts.missing.contains) {
                return (.unhealthyRadio, "radio: cannot scan: \(missing.rawValue) missing: \(missing.hint)")
            }
            if facts.needsPowerCycle { return (.unhealthyRadio, "radio: no adverts after every recovery step: it needs a power cycle") }
            let silence = facts.silenceSeconds ?? 0
            if facts.running, silence > limits.advertSilence.seconds {
                return (.unhealthyRadio, "radio: no advert for \(Int(silence)) s (over [Health] AdvertSilence)"
                            + (facts.recoveryStep.map { "; the watchdog's last step: \($0)" } ?? ""))
            }
        }
        if let age = facts.oldestQueuedSeconds, age > limits.queueAge.seconds {
            return (.unhealthyQueue, "queue: the oldest sample waits for \(Int(age)) s (over [Health] QueueAge): uploads are stuck; see waymark queue")
        }
        return (.ok, "")
    }
}
