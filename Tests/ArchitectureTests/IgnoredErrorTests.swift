import Foundation
import PeerHarness
import Testing

/// What the shipped code may leave unhandled: every `try?` in a shipped
/// module is listed in `ignored-errors.txt` with why dropping its error is
/// harmless, and the list holds nothing the sources no longer have. A store
/// write, a subscription or a read that decides something goes through an
/// error policy instead (see docs/architecture.md, "Errors").
struct IgnoredErrorTests {
    /// Modules that ship in the `waymark` binary: not the test peers, the fuzzer or the demo.
    static let unshipped = ["Sources/Peers/", "Sources/Fuzzing/", "Sources/waymark-demo/"]

    struct Site: Hashable, CustomStringConvertible {
        var path: String
        var code: String
        var description: String { "\(path) | \(code)" }
    }

    static func sitesInSources() throws -> [Site] {
        let root = Checkout.root.path
        guard let walker = FileManager.default.enumerator(atPath: root + "/Sources") else { return [] }
        var sites: [Site] = []
        for case let relative as String in walker where relative.hasSuffix(".swift") {
            let path = "Sources/" + relative
            guard !unshipped.contains(where: path.hasPrefix) else { continue }
            let text = try String(contentsOfFile: root + "/" + path, encoding: .utf8)
            for line in text.split(separator: "\n", omittingEmptySubsequences: false) where ignoresAnError(line) {
                sites.append(Site(path: path, code: line.trimmingCharacters(in: .whitespaces)))
            }
        }
        return sites
    }

    /// Whether the line has `try?` as an expression, outside a comment: the
    /// word `try` and a question mark, not the end of a name (`retry?`,
    /// `entry?.value`).
    static func ignoresAnError(_ line: Substring) -> Bool {
        let code = line.range(of: "//").map { line[..<$0.lowerBound] } ?? line
        var rest = code[...]
        while let found = rest.range(of: "try?") {
            let before = code[..<found.lowerBound].last
            if before.map({ !($0.isLetter || $0.isNumber || $0 == "_") }) ?? true { return true }
            rest = code[found.upperBound...]
        }
        return false
    }

    @Test func onlyTryAsAnExpressionCountsAsAnIgnoredError() {
        #expect(Self.ignoresAnError("let x = try? decode(y)"))
        #expect(Self.ignoresAnError("(try? reader.value())?.stringKeyed"))
        #expect(Self.ignoresAnError("try? await clock.sleep(for: wait)"))
        #expect(!Self.ignoresAnError("private var retry: Retry?"))
        #expect(!Self.ignoresAnError("retry?.cancel()"))
        #expect(!Self.ignoresAnError("entry?.value  // see try? below"))
    }

    static func listed() throws -> [(site: Site, why: String)] {
        let text = try String(contentsOfFile: Checkout.path("Tests/ArchitectureTests/ignored-errors.txt"), encoding: .utf8)
        return text.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { line in
            let parts = line.components(separatedBy: " | ")
            guard parts.count >= 3 else { return nil }
            return (Site(path: parts[0], code: parts[1...(parts.count - 2)].joined(separator: " | ")), parts[parts.count - 1])
        }
    }

    @Test func everyIgnoredErrorInAShippedModuleIsListedWithWhyItIsHarmless() throws {
        let found = try Self.sitesInSources()
        let listed = try Self.listed()
        #expect(found.count > 50, "the sources were read")
        var remaining = listed.map(\.site)
        var unlisted: [Site] = []
        for site in found {
            if let index = remaining.firstIndex(of: site) { remaining.remove(at: index) } else { unlisted.append(site) }
        }
        #expect(unlisted.isEmpty, """
            handle these errors (BestEffort, a retry, a typed error) or list each in Tests/ArchitectureTests/ignored-errors.txt \
            with why dropping it is harmless:
            \(unlisted.map(\.description).joined(separator: "\n"))
            """)
        #expect(remaining.isEmpty, "listed but gone from the sources: \(remaining.map(\.description).joined(separator: "\n"))")
        #expect(listed.allSatisfy { $0.why.count >= 10 && $0.why != "???" }, "every listed site says why")
    }
}
