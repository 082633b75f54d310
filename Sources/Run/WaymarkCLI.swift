import Basics
import CLI
internal import CSystem
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
        [run, StatusCommand.spec, ConfigCommand.spec],
        SessionCommands.specs, RecordingCommands.specs, EventCommands.specs, Doctor.specs, HealthCommand.specs, ExportCommand.specs,
        BluetoothCommands.specs, LocationCommands.specs, QueueCommands.specs, RadioCommand.specs, MQTTCommand.specs,
        CaptureCommands.specs, ReportCommand.specs,
        [manual, completion, version],
    ].joined())

    static let run = CommandSpec(name: "run", summary: "Run the gateway daemon until SIGTERM or SIGINT; SIGHUP reloads the config.",
                    details: "Exit 0 on SIGTERM or SIGINT. SIGHUP, or the D-Bus Reload method, re-reads the config. At every start it opens the store and, when the persisted session is authorized, arms and flushes what is pending: after a boot, a crash or a restart alike.") { invocation in
        guard let configuration = Configuration.load(for: invocation) else { return .config }
        Log.threshold = configuration.logLevel
        return await GatewayDaemon(configuration: configuration, invocation: invocation).run()
    }

    static let manual = CommandSpec(
        name: "manual", summary: "Print the man page waymark(1), made from this table of commands, or waymark.conf(5), made from the config's keys.",
        arguments: "[waymark|waymark.conf]"
    ) { invocation in
        switch invocation.arguments {
        case [], ["waymark"]: print(CommandDocumentation.manPage(commands, description: description), terminator: "")
        case ["waymark.conf"]: print(ConfigDocumentation.manPage(), terminator: "")
        default:
            Log.error("manual: \(UsageError.unexpectedArgument(invocation.arguments.joined(separator: " "))): the pages are waymark and waymark.conf")
            return .usage
        }
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
}
