import Foundation
import PeerHarness
import Testing

/// Every event reaches the store's log through the recorder's one executor,
/// which stamps it on the trips' time base and re-stamps it once the clock
/// is trusted: a Pi without an RTC never keeps an event on its 1970 clock.
struct EventWriteTests {
    @Test func everyEventIsWrittenByTheRecordersExecutor() throws {
        let root = Checkout.root.path
        let walker = try #require(FileManager.default.enumerator(atPath: root + "/Sources"))
        var writers: [String] = []
        for case let relative as String in walker where relative.hasSuffix(".swift") {
            let text = try String(contentsOfFile: root + "/Sources/" + relative, encoding: .utf8)
            for line in text.split(separator: "\n") where line.contains(".note(") && !line.contains("func note(") {
                writers.append("Sources/\(relative): \(line.trimmingCharacters(in: .whitespaces))")
            }
        }
        #expect(!writers.isEmpty, "the executor's writes were found")
        #expect(writers.allSatisfy { $0.hasPrefix("Sources/Recorder/RecordingExecutor.swift:") }, "\(writers.joined(separator: "\n"))")
    }
}
