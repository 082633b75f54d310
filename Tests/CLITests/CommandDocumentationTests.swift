@testable import CLI
import Command
import Foundation
import PeerHarness
import Testing

/// The man page and the completion the package installs are made from the
/// command table, so every command and option `--help` knows is in both.
struct CommandDocumentationTests {
    @Test func theManPageAndTheCompletionNameEveryCommandAndOption() throws {
        let page = CommandDocumentation.manPage(WaymarkCLI.commands, description: WaymarkCLI.description)
        let completion = CommandDocumentation.bashCompletion(WaymarkCLI.commands)
        for command in WaymarkCLI.commands {
            #expect(page.contains(".TP\n\\fB\(command.name.replacingOccurrences(of: "-", with: "\\-"))\\fR"), "\(command.name)")
            #expect(completion.contains("\n        \(command.name)) COMPREPLY"), "\(command.name)")
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
}
