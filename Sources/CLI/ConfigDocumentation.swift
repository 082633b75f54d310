import Basics
import Config

/// `waymark.conf(5)` and the manual's key table, both made from
/// `ConfigSchema`, so neither can drift from what the parser accepts.
package enum ConfigDocumentation {
    /// The file's syntax, as the parser reads it: one paragraph each.
    static let syntax = [
        "The file is INI-style, like BlueZ's main.conf and systemd units: [Section] headers, Key = value lines, "
            + "and # or ; comments, on lines of their own or after a value (after a space or tab: TopicPrefix = fleet#1 keeps its #). "
            + "A value in double quotes (Username = \"a ; b\") keeps everything between them. "
            + "A UTF-8 byte order mark at the start is skipped. Lines may end in LF or CRLF.",
        "A missing file at the default path means all defaults; a missing file named with --config is an error.",
        "Durations accept 500ms, 30s, 5min, 2h and 1d, with decimal digits and at most one point (1.5h); a bare number means seconds. "
            + "Sizes accept 512K, 64M and 1G. Numbers and sizes take decimal digits only (no 0x10, 1e3, sign or space).",
        "An unknown section or key, a bad value, a key set twice, a syntax error, a control character (NUL, escape, …) anywhere in a line, "
            + "or a file over 1 MiB stops the program with exit code 78 and one line that names the file, the line and the key.",
        "waymark run uses every key; a reload (systemctl reload waymark, or SIGHUP) re-reads the file, and a changed [Location] Source needs a restart. "
            + "The fleet may push four of them (Recording.GapThreshold, Upload.BatchSize, Bluetooth.ScanWatchdog, Bluetooth.DeviceExpiry): "
            + "waymark status shows the value in force of each and where it came from.",
    ]

    /// What a bad value makes the program print (after its log priority).
    static let refusal = "/etc/waymark/waymark.conf:4: Recording.BeaconLostTimeout: expected a duration of at least 1s, such as 30s, 5min or 2h, got \"never\""

    /// `waymark.conf(5)` in roff (man(7) macros).
    package static func manPage() -> String {
        typealias Doc = CommandDocumentation
        var page = """
            .TH WAYMARK.CONF 5 "" "waymark \(Doc.roff(Waymark.version))" "File Formats"
            .SH NAME
            waymark.conf \\- configuration of the Waymark vehicle gateway
            .SH SYNOPSIS
            \(Doc.roff(Configuration.defaultPath))
            .SH DESCRIPTION

            """
        page += syntax.map(Doc.roff).joined(separator: "\n.PP\n") + "\n"
        page += ".PP\nAn example of a refused value:\n.PP\n.RS\n.nf\n"
        page += Doc.roff(refusal)
        page += "\n.fi\n.RE\n.SH KEYS\n"
        for section in ConfigSchema.sections {
            page += ".SS [\(Doc.roff(section))]\n"
            for key in ConfigSchema.keys where key.section == section {
                page += ".TP\n\\fB\(Doc.roff(key.name))\\fR = " + (key.defaultText.isEmpty ? "(empty)" : "\\fI\(Doc.roff(key.defaultText))\\fR") + "\n"
                page += Doc.roff(Doc.plain(sentence(key.help))) + "\nTakes " + Doc.roff(Doc.plain(key.accepts)) + ".\n"
            }
        }
        page += """
            .SH FILES
            .TP
            \(Doc.roff(Configuration.defaultPath))
            The config the unit runs with; \\fBwaymark config \\-\\-defaults\\fR prints every key at its default, \\fBwaymark config\\fR checks it.
            .SH SEE ALSO
            waymark(1), systemd.unit(5)

            """
        return page
    }

    /// The manual's key table (docs/configuration.md): a table per section.
    package static func markdown() -> String {
        var text = syntax.joined(separator: "\n\n") + "\n\nAn example of a refused value:\n\n```\n<3>\(refusal)\n```\n\n"
        for section in ConfigSchema.sections {
            text += "### [\(section)]\n\n| key | default | takes | meaning |\n|---|---|---|---|\n"
            for key in ConfigSchema.keys where key.section == section {
                let value = key.defaultText.isEmpty ? "(empty)" : "`\(key.defaultText)`"
                text += "| `\(key.name)` | \(value) | \(CommandDocumentation.cell(key.accepts)) | \(CommandDocumentation.cell(sentence(key.help))) |\n"
            }
            text += "\n"
        }
        return text
    }

    /// The help as a sentence: a capital first and a full stop.
    private static func sentence(_ text: String) -> String {
        guard let first = text.first else { return text }
        return first.uppercased() + text.dropFirst() + (text.hasSuffix(".") ? "" : ".")
    }
}
