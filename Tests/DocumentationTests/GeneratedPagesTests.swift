@testable import CLI
import Foundation
import PeerHarness
@testable import Run
import Testing

/// The manual's reference parts are made from the code's own tables: the
/// config's keys, the commands, and the checks doctor makes. Each page holds
/// what its generator makes now; `make docs` (WAYMARK_WRITE_DOCS=1) rewrites them.
struct GeneratedPagesTests {
    static let begin = "<!-- BEGIN generated", end = "<!-- END generated -->"

    static let generated: [(page: String, text: String)] = [
        ("docs/configuration.md", ConfigDocumentation.markdown()),
        ("docs/commands.md", CommandDocumentation.markdown(WaymarkCLI.commands)),
        ("docs/troubleshooting.md", DoctorItem.markdown()),
    ]

    /// The page with its generated part replaced by `text`, or nil without the markers.
    static func page(_ page: String, with text: String) -> String? {
        guard let start = page.range(of: begin), let lineEnd = page[start.upperBound...].firstIndex(of: "\n"),
              let stop = page.range(of: end, range: lineEnd..<page.endIndex) else { return nil }
        return String(page[...lineEnd]) + text + String(page[stop.lowerBound...])
    }

    @Test(arguments: generated.map(\.page))
    func theGeneratedPartOfThePageIsWhatTheCodeMakesNow(_ path: String) throws {
        let text = try #require(Self.generated.first { $0.page == path }).text
        let current = try String(contentsOfFile: Checkout.path(path), encoding: .utf8)
        let expected = try #require(Self.page(current, with: text), "\(path) has no \(Self.begin) … \(Self.end) markers")
        if ProcessInfo.processInfo.environment["WAYMARK_WRITE_DOCS"] == "1", expected != current {
            try expected.write(toFile: Checkout.path(path), atomically: true, encoding: .utf8)
            print("\(path): rewritten")
            return
        }
        #expect(current == expected, "\(path) differs from what the code makes: run make docs")
    }

    /// Every check doctor makes is explained, with its fix, on the page.
    @Test func theTroubleshootingPageNamesEveryCheckAndFixDoctorHas() throws {
        let page = try String(contentsOfFile: Checkout.path("docs/troubleshooting.md"), encoding: .utf8)
        for item in DoctorItem.allCases {
            #expect(page.contains("#### `\(item.rawValue)`"), "\(item.rawValue)")
            #expect(page.contains(item.fix), "\(item.rawValue)'s fix")
        }
    }
}
