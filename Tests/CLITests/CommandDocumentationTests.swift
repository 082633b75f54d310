@testable import CLI
import Command
import Foundation
import PeerHarness
@testable import Run
import Testing

/// The man page and the completion the package installs are made from the
/// command table, so every command and option `--help` knows is in both.
struct CommandDocumentationTests {
    @Test func theManPageAndTheCompletionNameEveryCommandAndOption() throws {
        let page = CommandDocumentation.manPage(WaymarkCLI.commands, description: WaymarkCLI.description)
        let completion = CommandDocumentation.bashCompletion(WaymarkCLI.commands)
        for command in WaymarkCLI.commands {
            #expect(page.contains(".TP\n\\fB\(command.name.replacingOccurrences(of: "-", with: "\\-"))\\fR"), "\(command.name)")
            #expect(completion.contains("\n        \(command.name))\n"), "\(command.name)")
            for option in command.options {
                #expect(page.contains("\\fB\(option.name.replacingOccurrences(of: "-", with: "\\-"))\\fR"), "\(command.name) \(option.name)")
                #expect(completion.contains(option.name), "\(command.name) \(option.name)")
            }
        }
        // Hyphens stay ASCII (escaped) and no line starts a request by accident.
        #expect(!page.split(separator: "\n").contains { $0.hasPrefix("'") })
        let work = try TemporaryDirectory()
        defer { work.remove() }
        try completion.write(toFile: work.file("waymark.bash"), atomically: true, encoding: .utf8)
        let syntax = try ChildProcess("bash", ["-n", work.file("waymark.bash")], aptPackage: "bash", logPath: work.file("bash.log"))
        #expect(try syntax.wait(timeout: 30) == 0, "\(syntax.output)")
    }

    /// What bash offers after `words` (the last one being completed), with
    /// the completion script sourced and `_waymark` called as bash would.
    static func complete(_ words: [String], in work: TemporaryDirectory) throws -> [String] {
        let script = work.file("waymark.bash")
        try CommandDocumentation.bashCompletion(WaymarkCLI.commands).write(toFile: script, atomically: true, encoding: .utf8)
        let quoted = words.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
        let line = "source \(script); COMP_WORDS=(waymark \(quoted)); COMP_CWORD=\(words.count); _waymark; printf '%s\\n' \"${COMPREPLY[@]}\""
        let bash = try ChildProcess("bash", ["-c", line], aptPackage: "bash", logPath: work.file("complete-\(UUID().uuidString).log"))
        #expect(try bash.wait(timeout: 30) == 0, "\(bash.output)")
        return bash.output.split(separator: "\n").map(String.init).sorted()
    }

    @Test func completionKnowsGlobalOptionsSubcommandsValuesAndFiles() throws {
        let work = try TemporaryDirectory()
        defer { work.remove() }
        mkdir(work.file("stores"), 0o700)
        #expect(FileManager.default.createFile(atPath: work.file("capture.wmk"), contents: Data()))
        #expect(FileManager.default.createFile(atPath: work.file("stuff.conf"), contents: Data()))
        let cases: [([String], [String])] = [
            (["--config", "/etc/waymark.conf", "tr"], ["trips"]),
            (["--data-dir", "/tmp", "--config", "x", "qu"], ["queue"]),
            (["queue", ""], ["flush", "retry-dead"]),
            (["queue", "--"], ["--help", "--json"]),
            (["mqtt", ""], ["test"]),
            (["pair", "--role", ""], ["sensor", "vehicle"]),
            (["export", "--format", "g"], ["geojson", "gpx"]),
            (["export", "--trip", ""], []),
            (["--config", work.file("st")], [work.file("stores"), work.file("stuff.conf")]),
            (["--data-dir", work.file("st")], [work.file("stores")]),
            (["gps", "--nmea", work.file("cap")], [work.file("capture.wmk")]),
            (["pair", "--bindkey-file", work.file("cap")], [work.file("capture.wmk")]),
            (["replay", work.file("cap")], [work.file("capture.wmk")]),
            (["replay", "--sp"], ["--speed"]),
            (["report", "--out", work.file("cap")], [work.file("capture.wmk")]),
        ]
        for (words, expected) in cases {
            let offered = try Self.complete(words, in: work)
            #expect(offered == expected, "waymark \(words.joined(separator: " "))<TAB> offers \(offered)")
        }
    }

    /// The manual's exit-code table is the one `ExitCode.documented` gives, and the man page lists every code of it.
    @Test func theManualAndTheManPageListTheSameExitCodes() throws {
        let readme = try String(contentsOfFile: Checkout.path("docs/commands.md"), encoding: .utf8)
        let table = readme.components(separatedBy: "| code | meaning |\n|---|---|\n")[1].split(separator: "\n").prefix { $0.hasPrefix("|") }.joined(separator: "\n")
        #expect(table == ExitCode.documented.map { "| \($0.codes) | \($0.meaning) |" }.joined(separator: "\n"))
        let page = CommandDocumentation.manPage(WaymarkCLI.commands, description: WaymarkCLI.description)
        for code in [0, 1, 64, 65, 69, 70, 73, 74, 77, 78] {
            #expect(page.contains(".TP\n\(code)\n") || page.contains(".TP\n\(code) / ") || page.contains(" / \(code)\n"), "\(code)")
        }
        #expect(page.contains(".TP\n10\\[u2013]14\n"))
    }
}
