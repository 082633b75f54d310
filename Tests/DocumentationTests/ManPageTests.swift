@testable import CLI
import Config
import Foundation
import PeerHarness
@testable import Run
import Testing

/// `waymark(1)` and `waymark.conf(5)`, as `waymark manual` prints them and the packages install them.
struct ManPageTests {
    /// groff's output and its warnings for a page `waymark manual` prints.
    static func groff(_ page: [String]) throws -> (status: Int32, warnings: String, text: String) {
        let work = try TemporaryDirectory()
        defer { work.remove() }
        let printed = try WaymarkBinary.run(["manual"] + page, in: work)
        #expect(printed.status == 0)
        try printed.output.write(toFile: work.file("page"), atomically: true, encoding: .utf8)
        let groff = try ChildProcess("sh", ["-c", "groff -man -Tutf8 -ww -rLL=400n -rHY=0 -P-cbou \(work.file("page")) > \(work.file("page.txt"))"],
                                     aptPackage: "groff-base", logPath: work.file("groff.log"))
        let status = try groff.wait(timeout: 30)
        return (status, groff.output, try String(contentsOfFile: work.file("page.txt"), encoding: .utf8))
    }

    @Test(arguments: [["waymark"], ["waymark.conf"]])
    func theManPagePassesGroffWithNoWarning(_ page: [String]) throws {
        let (status, warnings, _) = try Self.groff(page)
        #expect(status == 0)
        #expect(warnings.isEmpty, "\(warnings)")
    }

    /// Every key, with its section, default and what it takes.
    @Test func theConfigPageNamesEveryKeyWithItsDefaultAndWhatItTakes() throws {
        let text = try Self.groff(["waymark.conf"]).text
        let words = text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        for section in ConfigSchema.sections { #expect(text.contains("[\(section)]"), "\(section)") }
        for key in ConfigSchema.keys {
            let value = key.defaultText.isEmpty ? "(empty)" : key.defaultText
            #expect(words.contains("\(key.name) = \(value)"), "\(key.section).\(key.name)")
            #expect(words.contains("Takes " + key.accepts.split(whereSeparator: \.isWhitespace).joined(separator: " ")), "\(key.section).\(key.name)")
        }
        #expect(text.contains("waymark(1)"))
    }

    @Test func anUnknownPageIsAUsageError() throws {
        let work = try TemporaryDirectory()
        defer { work.remove() }
        let result = try WaymarkBinary.run(["manual", "waymark.service"], in: work)
        #expect(result.status == 64)
        #expect(result.output.contains("the pages are waymark and waymark.conf"), "\(result.output)")
    }
}
