internal import CSystem
import Basics
import Command
import Config
import Daemon
import FoundationEssentials
internal import Glibc
import Logging
import Store

/// The `waymark` command line: a table of subcommands and a small parser.
public enum WaymarkCLI {
    /// Every command, in the order `--help` lists them. Groups joined, not
    /// one literal added up: Swift 6.0's type checker gives up on the sum.
    static let commands: [CommandSpec] = Array([
        [run, status, config],
        SessionCommands.specs, RecordingCommands.specs, EventCommands.specs, Doctor.specs, HealthCommand.specs, ExportCommand.specs,
        BluetoothCommands.specs, LocationCommands.specs, QueueCommands.specs, RadioCommand.specs, MQTTCommand.specs,
        CaptureCommands.specs, ReportCommand.specs,
        [manual, completion, version],
    ].joined())

    static let run = CommandSpec(name: "run", summary: "Run the gateway daemon until SIGTERM or SIGINT; SIGHUP reloads the config.") { invocation in
        guard let configuration = loadConfiguration(invocation) else { return .config }
        Log.threshold = configuration.logLevel
        return await GatewayDaemon(configuration: configuration, invocation: invocation).run()
    }

    static let status = CommandSpec(name: "status", summary: "Show the daemon, store and requirement state.",
        options: [OptionSpec(name: "--json", help: "print one JSON object")]) { invocation in
        guard let configuration = loadConfiguration(invocation) else { return .config }
        let store: GatewayStore?
        switch StoreAccess.open(invocation, for: "status", create: false) {
        case .store(let opened): store = opened
        case .absent: store = nil
        case .failed(let code): return code
        }
        do {
            let report = try await StatusReport.gather(invocation, configuration: configuration, store: store)
            if invocation.flag("--json") {
                print(String(decoding: try JSONEncoder.snakeCase.encode(report), as: UTF8.self))
            } else {
                print(report.text)
            }
            return .ok
        } catch {
            Log.error("status: \(error)")
            return StoreAccess.exitCode(for: error)
        }
    }

    static let config = CommandSpec(name: "config", summary: "Check the config file, or print a commented default one.",
        options: [OptionSpec(name: "--defaults", help: "print every key with its default"),
                  OptionSpec(name: "--require-backend", help: "exit 1 unless [Session] Issuer and [Backend] BaseURL are set (the unit's start condition)")]) { invocation in
        if invocation.flag("--defaults") {
            print(Configuration.documentedDefaults, terminator: "")
            return .ok
        }
        guard let configuration = loadConfiguration(invocation) else { return .config }
        if invocation.flag("--require-backend") {
            let missing = [("[Session] Issuer", configuration.session.issuer), ("[Backend] BaseURL", configuration.backend.baseURL)]
                .filter { $0.1?.isEmpty ?? true }.map(\.0)
            guard missing.isEmpty else {
                print("\(invocation.configPath): no backend yet: set \(missing.joined(separator: " and ")), then systemctl start waymark")
                return .failure
            }
        }
        print("\(invocation.configPath): ok")
        return .ok
    }

    static let manual = CommandSpec(name: "manual", summary: "Print the waymark(1) man page, made from this table of commands.") { _ in
        print(CommandDocumentation.manPage(commands, description: description), terminator: "")
        return .ok
    }

    static let completion = CommandSpec(name: "completion", summary: "Print a bash completion script for waymark.") { _ in
        print(CommandDocumentation.bashCompletion(commands), terminator: "")
        return .ok
    }

    static let version = CommandSpec(name: "version", summary: "Print the version.") { _ in
        print("waymark \(Waymark.version)")
        return .ok
    }

    /// Runs the command line and returns the process exit code.
    public static func main(_ arguments: [String]) async -> Int32 {
        let invocation: Invocation
        do {
            invocation = try Invocation(parsing: arguments, commands: commands)
        } catch {
            Log.error("waymark: \(error)")
            return ExitCode.usage.rawValue
        }
        guard let name = invocation.command, let command = commands.first(where: { $0.name == name }) else {
            // Asked for, the usage is the output; otherwise it explains an error.
            guard invocation.wantsHelp else {
                Log.raw(overview + "\n")
                return ExitCode.usage.rawValue
            }
            print(overview)
            return finishOutput("waymark", .ok).rawValue
        }
        if invocation.wantsHelp {
            print(command.help, terminator: "")
            return finishOutput(name, .ok).rawValue
        }
        // These hold tokens in memory: no core dump, no ptrace by the same user.
        if ["run", "login"].contains(name), csystem_set_undumpable() != 0 {
            Log.warning("\(name): cannot mark the process undumpable: \(String(cString: strerror(errno)))")
        }
        if !command.arguments.isEmpty || invocation.arguments.isEmpty {
            return finishOutput(name, await command.run(invocation)).rawValue
        }
        Log.error("waymark: \(UsageError.unexpectedArgument(invocation.arguments[0]))")
        return ExitCode.usage.rawValue
    }

    /// Every command's standard output ends here: whatever it printed is
    /// flushed, and a write that failed (a full disk, a closed terminal)
    /// anywhere along the way is one line on stderr and exit 74, never a
    /// silent success.
    static func finishOutput(_ name: String, _ code: ExitCode) -> ExitCode {
        let failure = csystem_finish_stdout()
        guard failure != 0 else { return code }
        let reason = String(cString: strerror(failure))
        Log.error("\(name): cannot write to standard output: \(reason)")
        return .ioError
    }

    /// What every command does first, on the main thread before any other
    /// thread exists: no transparent huge pages (see `HugePages`), so that
    /// no thread's stack or heap has one from before.
    public static func prepareProcess() {
        if let refused = HugePages.turnOff() { Log.warning("waymark: transparent huge pages stay on: \(refused)") }
    }

    static let description = "Waymark records vehicle trips from a BLE beacon and GPS, and uploads them."

    static var overview: String {
        var text = """
        usage: waymark [--config FILE] [--data-dir DIR] COMMAND [OPTIONS]

        \(description)

        commands:

        """
        for command in commands { text += "  " + command.name.padding(to: 10) + command.summary + "\n" }
        text += """

        global options:
          --config FILE         config file (default \(Configuration.defaultPath))
          --data-dir DIR        where the store lives (default /var/lib/waymark)
          --help                help for waymark or for a command

        """
        return text
    }

    /// Loads the configuration, printing the one-line error on failure.
    static func loadConfiguration(_ invocation: Invocation) -> Configuration? {
        do {
            return try Configuration.load(path: invocation.configPath, explicit: invocation.configExplicit)
        } catch {
            Log.error(error.description)
            return nil
        }
    }
}

extension JSONEncoder {
    static var snakeCase: JSONEncoder {
        let encoder = sorted
        encoder.keyEncodingStrategy = .convertToSnakeCase
        return encoder
    }
}
