import Command
import Config

/// The man page and the bash completion, both made from the command table,
/// so neither can drift from `--help`. The Debian package carries them.
enum CommandDocumentation {
    /// `waymark(1)` in roff (man(7) macros).
    static func manPage(_ commands: [CommandSpec], description: String) -> String {
        var page = """
            .TH WAYMARK 1 "" "waymark \(roff(Waymark.version))" "User Commands"
            .SH NAME
            waymark \\- vehicle gateway: BLE beacon and GPS trip recorder
            .SH SYNOPSIS
            .B waymark
            [\\fB\\-\\-config\\fR \\fIFILE\\fR] [\\fB\\-\\-data\\-dir\\fR \\fIDIR\\fR] \\fICOMMAND\\fR [\\fIOPTIONS\\fR]
            .SH DESCRIPTION
            \(roff(description))
            .PP
            The daemon (\\fBwaymark run\\fR) normally runs under systemd as \\fBwaymark.service\\fR, as user \\fBwaymark\\fR.
            The other commands read the same store and talk to the running daemon over D\\-Bus.
            .SH COMMANDS

            """
        for command in commands {
            page += ".TP\n\\fB\(roff(command.name))\\fR"
            for option in command.options {
                page += " [\\fB\(roff(option.name))\\fR" + (option.valueName.map { " \\fI\(roff($0))\\fR" } ?? "") + "]"
            }
            if !command.arguments.isEmpty { page += " \\fI\(roff(command.arguments))\\fR" }
            page += "\n\(roff(command.summary))\n"
            for option in command.options {
                page += ".RS\n.TP\n\\fB\(roff(option.name))\\fR" + (option.valueName.map { " \\fI\(roff($0))\\fR" } ?? "")
                page += "\n\(roff(option.help))\n.RE\n"
            }
        }
        page += """
            .SH OPTIONS
            .TP
            \\fB\\-\\-config\\fR \\fIFILE\\fR
            The config file (default \(roff(Configuration.defaultPath))).
            .TP
            \\fB\\-\\-data\\-dir\\fR \\fIDIR\\fR
            Where the store lives (default /var/lib/waymark).
            .TP
            \\fB\\-\\-help\\fR
            Help for waymark, or for one command.
            .SH EXIT STATUS
            Exit codes follow sysexits(3):

            """
        for (code, meaning) in exitCodes {
            page += ".TP\n\(code.rawValue)\n\(roff(meaning))\n"
        }
        page += """
            .SH FILES
            .TP
            /etc/waymark/waymark.conf
            The config (\\fBwaymark config \\-\\-defaults\\fR prints every key).
            .TP
            /var/lib/waymark/waymark.db
            The store: session, pairings, trips and the upload queue.
            .SH SEE ALSO
            systemctl(1), journalctl(1), bluetoothd(8), gpsd(8)

            """
        return page
    }

    /// A bash completion script: commands, then each command's options.
    static func bashCompletion(_ commands: [CommandSpec]) -> String {
        var script = """
            # bash completion for waymark, made by `waymark completion`.
            _waymark() {
                local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} command="" word
                for word in "${COMP_WORDS[@]:1:COMP_CWORD-1}"; do
                    case $word in -*) ;; *) [ "$prev" != --config ] && [ "$prev" != --data-dir ] && command=$word && break ;; esac
                done
                case $prev in
                    --config|--out|--keep) COMPREPLY=($(compgen -f -- "$cur")); return ;;
                    --data-dir) COMPREPLY=($(compgen -d -- "$cur")); return ;;
                esac
                case $command in
                    "") COMPREPLY=($(compgen -W "\(commands.map(\.name).joined(separator: " ")) --config --data-dir --help" -- "$cur")) ;;

            """
        for command in commands {
            let options = (command.options.map(\.name) + ["--help"]).joined(separator: " ")
            script += "        \(command.name)) COMPREPLY=($(compgen -W \"\(options)\" -- \"$cur\")) ;;\n"
        }
        script += """
                esac
            }
            complete -F _waymark waymark

            """
        return script
    }

    private static let exitCodes: [(ExitCode, String)] = [
        (.ok, "success"),
        (.failure, "a check failed (doctor, whoami, the unit's start condition)"),
        (.usage, "usage error: an unknown command or option"),
        (.dataError, "bad input data: a payload or key that is not hex, an unknown pairing id"),
        (.unavailable, "a service is unavailable: Bluetooth for scan and pair, the daemon for queue flush and radio"),
        (.software, "an internal error"),
        (.cannotCreate, "the store cannot be created"),
        (.ioError, "the store cannot be read or written"),
        (.noPermission, "no permission for the data directory"),
        (.config, "configuration error"),
    ]

    /// Text escaped for roff: backslashes, hyphens (so they stay ASCII
    /// minus signs), and a leading dot or quote that would start a request.
    private static func roff(_ text: String) -> String {
        var escaped = ""
        var lineStart = true
        for character in text {
            if lineStart, character == "." || character == "'" { escaped += "\\&" }
            switch character {
            case "\\": escaped += "\\e"
            case "-": escaped += "\\-"
            default: escaped.append(character)
            }
            lineStart = character == "\n"
        }
        return escaped
    }
}
