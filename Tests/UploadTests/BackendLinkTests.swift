import Testing
import Upload

/// The uploader's account of the backend: a line when the link goes down,
/// when its reason changes and when it comes back, never one per attempt.
struct BackendLinkTests {
    @Test func aWeekOfFailedAttemptsForOneReasonIsOneLine() {
        var link = BackendLink()
        var lines: [BackendLink.Line] = []
        for _ in 0..<10_000 { if let line = link.failed("cannot reach fleet.example.com") { lines.append(line) } }
        #expect(lines == [.down(reason: "cannot reach fleet.example.com")])
        #expect(link.answered() == .back(failures: 10_000))
        #expect(link.answered() == nil, "up already")
    }

    @Test func aNewReasonIsSaidOnceAndAnAnswerWithoutAFailureIsSilent() {
        var link = BackendLink()
        #expect(link.answered() == nil)
        #expect(link.failed("HTTP 503") == .down(reason: "HTTP 503"))
        #expect(link.failed("HTTP 503") == nil)
        #expect(link.failed("HTTP 200 (text/html) is not an acknowledgement of the samples")
            == .down(reason: "HTTP 200 (text/html) is not an acknowledgement of the samples"))
        #expect(link.state == .down(reason: "HTTP 200 (text/html) is not an acknowledgement of the samples", failures: 3))
        #expect(link.answered() == .back(failures: 3))
    }
}
