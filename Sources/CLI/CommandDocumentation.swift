import Basics
package import Command
import Config

/// The man page and the bash completion, both made from the command table,
/// so neither can drift from `--help`. The Debian package carries them.
package enum CommandDocumentation {
    /// `waymark(1)` in roff (man(7) macros).
    package static func manPage(_ commands: [CommandSpec], description: String) -> String {
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
                let text = "\\fB\(roff(option.name))\\fR" + (option.valueName.map { " \\fI\(roff($0))\\fR" } ?? "")
                page += option.required ? " " + text : " [" + text + "]"
            }
            if !command.arguments.isEmpty { page += " \\fI\(roff(command.arguments))\\fR" }
            page += "\n\(roff(command.summary))\n"
            if !command.details.isEmpty { page += ".br\n\(roff(command.details))\n" }
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
        for (codes, meaning) in ExitCode.documented {
            page += ".TP\n\(roff(codes))\n\(roff(plain(meaning)))\n"
        }
        page += """
            .SH FILES
            .TP
            /etc/waymark/waymark.conf
            The config, described in waymark.conf(5) (\\fBwaymark config \\-\\-defaults\\fR prints every key).
            .TP
            /var/lib/waymark/waymark.db
            The store: session, pairings, trips and the upload queue.
            .SH SEE ALSO
            waymark.conf(5), systemctl(1), journalctl(1), bluetoothd(8), gpsd(8)

            """
        return page
    }

    /// The manual's command reference (docs/commands.md): each command's
    /// usage, summary, details and options, then the exit codes.
    package static func markdown(_ commands: [CommandSpec]) -> String {
        var text = ""
        for command in commands {
            text += "### `\(command.name)`\n\n```\n\(command.usage.dropFirst("usage: ".count))\n```\n\n\(command.summary)\n"
            if !command.details.isEmpty { text += "\n\(command.details)\n" }
            if !command.options.isEmpty {
                text += "\n| option | |\n|---|---|\n"
                for option in command.options { text += "| `\(cell(option.synopsis))` | \(cell(option.help)) |\n" }
            }
            text += "\n"
        }
        text += "### Exit codes\n\nExit codes follow sysexits(3):\n\n| code | meaning |\n|---|---|\n"
        for (codes, meaning) in ExitCode.documented { text += "| \(codes) | \(cell(meaning)) |\n" }
        return text
    }

    /// Text for a Markdown table's cell: a bar would end it.
    static func cell(_ text: String) -> String { text.split(separator: "|", omittingEmptySubsequences: false).joined(separator: "\\|") }

    /// A bash completion script: the global options and their values, the
    /// commands, then each command's options, their values (files,
    /// directories or words, from the placeholder) and its arguments.
    package static func bashCompletion(_ commands: [CommandSpec]) -> String {
        var script = """
            # bash completion for waymark, made by `waymark completion`.
            _waymark_complete() {
                case $1 in
                    files) compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -f -- "$cur")) ;;
                    directories) compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -d -- "$cur")) ;;
                    nothing) COMPREPLY=() ;;
                    *) COMPREPLY=($(compgen -W "$1" -- "$cur")) ;;
                esac
            }
            _waymark() {
                local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} command="" i
                # The command is the first word that is neither a global option nor its value.
                for ((i = 1; i < COMP_CWORD; i++)); do
                    case ${COMP_WORDS[i]} in
                        --config|--data-dir) ((i++)) ;;
                        -*) ;;
                        *) command=${COMP_WORDS[i]}; break ;;
                    esac
                done
                case $prev in
                    --config) _waymark_complete files; return ;;
                    --data-dir) _waymark_complete directories; return ;;
                esac
                case $command in
                    "") _waymark_complete "\(commands.map(\.name).joined(separator: " ")) --config --data-dir --help" ;;

            """
        for command in commands {
            let options = (command.options.map(\.name) + ["--help"]).joined(separator: " ")
            script += "        \(command.name))\n"
            let valued = command.options.filter { $0.completion != nil }
            if !valued.isEmpty {
                script += "            case $prev in\n"
                for option in valued {
                    script += "                \(option.name)) _waymark_complete \(shellWord(option.completion ?? .nothing)); return ;;\n"
                }
                script += "            esac\n"
            }
            let arguments = command.arguments.isEmpty ? ValueCompletion.nothing : ValueCompletion(placeholder: command.arguments)
            if arguments == .nothing {
                script += "            _waymark_complete \"\(options)\" ;;\n"
            } else {
                script += "            case $cur in -*) _waymark_complete \"\(options)\" ;; *) _waymark_complete \(shellWord(arguments)) ;; esac ;;\n"
            }
        }
        script += """
                esac
            }
            complete -F _waymark waymark

            """
        return script
    }

    /// The argument `_waymark_complete` takes for `completion`.
    private static func shellWord(_ completion: ValueCompletion) -> String {
        switch completion {
        case .nothing: "nothing"
        case .files: "files"
        case .directories: "directories"
        case .words(let words): "\"" + words.joined(separator: " ") + "\""
        }
    }

    /// Markdown made plain text: no backticks, and a link's text without its target.
    static func plain(_ text: String) -> String {
        var result = ""
        var rest = Substring(text.filter { $0 != "`" })
        while let open = rest.firstIndex(of: "[") {
            result += rest[..<open]
            let afterOpen = rest[rest.index(after: open)...]
            guard let close = afterOpen.firstIndex(of: "]"), afterOpen[close...].hasPrefix("]("),
                  let end = afterOpen[close...].firstIndex(of: ")") else {
                result += "["
                rest = afterOpen
                continue
            }
            result += afterOpen[..<close]
            rest = afterOpen[afterOpen.index(after: end)...]
        }
        return result + rest
    }

    /// Text escaped for roff: backslashes, hyphens (so they stay ASCII
    /// minus signs), characters beyond ASCII, and a leading dot or quote
    /// that would start a request.
    static func roff(_ text: String) -> String {
        var escaped = ""
        var lineStart = true
        for character in text {
            if lineStart, character == "." || character == "'" { escaped += "\\&" }
            switch character {
            case "\\": escaped += "\\e"
            case "-": escaped += "\\-"
            case _ where !character.isASCII:
                // groff reads its input as Latin-1: anything else by its code point (\[u2026] is …).
                for scalar in character.unicodeScalars {
                    let hex = String(scalar.value, radix: 16, uppercase: true)
                    escaped += "\\[u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex + "]"
                }
            default: escaped.append(character)
            }
            lineStart = character == "\n"
        }
        return escaped
    }
}
