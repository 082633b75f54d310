@testable import CLI
import Command
import Config
import Foundation
import PeerHarness
@testable import Run
import Testing

/// The README and the manual in `docs/` hold to what the code, the Makefile
/// and the files of the checkout are.
struct ManualTests {
    /// `[text](target)` and `![text](target)` links of `text`, outside code.
    static func links(in text: String) -> [String] {
        var links: [String] = [], inFence = false
        for line in text.split(separator: "\n") {
            if line.drop(while: { $0 == " " }).hasPrefix("```") { inFence.toggle() }
            guard !inFence else { continue }
            // Code spans can hold brackets that are no link.
            let prose = line.split(separator: "`", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 0 }.map(\.element)
            for part in prose {
                for match in part.matches(of: #/\]\(([^)\s]+)\)/#) { links.append(String(match.1)) }
            }
        }
        return links
    }

    @Test func everyRelativeLinkAndAnchorResolves() throws {
        let pages = try Manual.pages()
        var checked = 0
        for (path, text) in pages {
            let directory = URL(fileURLWithPath: path).deletingLastPathComponent().relativePath
            for link in Self.links(in: text) where !link.contains("://") && !link.hasPrefix("mailto:") {
                let parts = link.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
                let target = parts[0].isEmpty ? path : URL(fileURLWithPath: directory == "." ? parts[0] : directory + "/" + parts[0]).standardized.relativePath
                let file = Checkout.path(target)
                #expect(FileManager.default.fileExists(atPath: file), "\(path): \(link): no \(target)")
                if parts.count == 2, let page = try? String(contentsOfFile: file, encoding: .utf8) {
                    #expect(Manual.anchors(in: page).contains(parts[1]), "\(path): \(link): no heading for #\(parts[1]) in \(target)")
                }
                checked += 1
            }
        }
        #expect(checked > 50, "links checked: \(checked)")
    }

    /// `sudo -u waymark waymark pair …` as the words `waymark` parses, or nil for another program's line.
    static func waymarkArguments(_ line: String) -> [String]? {
        var words = line.split(separator: " ").map(String.init)
        if words.starts(with: ["sudo", "-u", "waymark"]) { words.removeFirst(3) }
        guard words.first == "waymark" else { return nil }
        // The shell's part: a redirection, a pipe or a second command.
        if let end = words.firstIndex(where: { ["<", ">", "|", "&&", ";"].contains($0) }) { words = Array(words[..<end]) }
        return Array(words.dropFirst())
    }

    /// The README's commands, as a newcomer copies them: every `make` target
    /// exists in the Makefile, and every `waymark` command parses.
    @Test func theReadmesCommandsNameMakeTargetsThatExistAndWaymarkCommandsThatParse() throws {
        let readme = try String(contentsOfFile: Checkout.path("README.md"), encoding: .utf8)
        let makefile = try String(contentsOfFile: Checkout.path("Makefile"), encoding: .utf8)
        let targets = Set(makefile.split(separator: "\n").compactMap { line in
            line.first?.isLetter == true && line.contains(":") && !line.contains("=") ? String(line.prefix { $0 != ":" }) : nil
        })
        var makes = 0, commands = 0
        for block in Manual.blocks("sh", in: readme) {
            for line in block.split(separator: "\n").map({ String($0.prefix { $0 != "#" }).trimmingCharacters(in: .whitespaces) }) where !line.isEmpty {
                if line.hasPrefix("make ") {
                    let target = String(line.dropFirst(5).prefix { $0 != " " })
                    #expect(targets.contains(target), "README: make \(target): no such target")
                    makes += 1
                } else if let arguments = Self.waymarkArguments(line) {
                    do {
                        let invocation = try Invocation(parsing: arguments, commands: WaymarkCLI.commands)
                        #expect(invocation.command.map { name in WaymarkCLI.commands.contains { $0.name == name } } == true, "README: \(line)")
                    } catch {
                        Issue.record("README: \(line): \(error)")
                    }
                    commands += 1
                }
            }
        }
        #expect(makes >= 2 && commands >= 4, "make commands \(makes), waymark commands \(commands)")
        // CI runs the first block's commands exactly as written: it must be the two.
        let first = try #require(Manual.blocks("sh", in: readme).first)
        #expect(first.split(separator: "\n").map { $0.prefix { $0 != "#" }.trimmingCharacters(in: .whitespaces) } == ["make demo", "make test"])
    }

    /// `$ waymark …` lines in a page's `sh` blocks, with the lines the page shows them printing.
    static func examples(in text: String) -> [(command: String, output: String)] {
        var examples: [(command: String, output: String)] = []
        for block in Manual.blocks("sh", in: text) {
            for line in block.split(separator: "\n", omittingEmptySubsequences: false) {
                if line.hasPrefix("$ ") {
                    examples.append((String(line.dropFirst(2)), ""))
                } else if !examples.isEmpty, block.contains("$ " + examples[examples.count - 1].command) {
                    examples[examples.count - 1].output += line + "\n"
                }
            }
        }
        return examples
    }

    /// Every example the manual shows with its output runs offline, from the
    /// checkout's root, and prints exactly that on standard output.
    @Test func everyOfflineExamplePrintsWhatThePageShows() throws {
        let work = try TemporaryDirectory()
        defer { work.remove() }
        let waymark = try WaymarkBinary.path
        var ran = 0
        for (path, text) in try Manual.pages() {
            for example in Self.examples(in: text) {
                // Standard output only: the pages show what a command prints, and its log lines go to standard error.
                let command = "cd '\(Checkout.root.path)' && { " + example.command.replacingOccurrences(of: "waymark ", with: "'\(waymark)' --config /dev/null ")
                    + "; } 2>'\(work.file("stderr-\(ran).log"))'"
                let shell = try ChildProcess("sh", ["-c", command], aptPackage: "dash", logPath: work.file("example-\(ran).log"))
                _ = try shell.wait(timeout: 30)
                #expect(shell.output == example.output, "\(path): $ \(example.command)\nprinted:\n\(shell.output)\nthe page shows:\n\(example.output)")
                ran += 1
            }
        }
        #expect(ran >= 4, "examples run: \(ran)")
    }

    /// The configuration page's refused value is what the parser says of it.
    @Test func theRefusalTheConfigPagesShowIsTheParsers() throws {
        let text = "[Recording]\n# the trip's end\n\nBeaconLostTimeout = never\n"
        do {
            _ = try Configuration.parse(text, file: "/etc/waymark/waymark.conf")
            Issue.record("never is not a duration")
        } catch {
            #expect(error.description == ConfigDocumentation.refusal)
        }
    }
}
