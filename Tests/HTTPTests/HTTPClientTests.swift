import HTTP
import PeerHarness
import Testing

/// libcurl through `HTTPClient`, against loopback peers: what comes back
/// when a server says nothing, when nothing listens, and when it answers.
struct HTTPClientTests {
    @Test func aServerThatNeverAnswersIsATimeoutNamingTheURLWithoutItsQuery() async throws {
        let silent = try SilentServer()
        let url = "http://127.0.0.1:\(silent.port)/v1/samples"
        await #expect(throws: HTTPError.timedOut(url: url)) {
            _ = try await HTTPClient().send(HTTPRequest(url: url + "?token=secret", timeout: .milliseconds(300)))
        }
    }

    @Test func nothingListeningIsAConnectionErrorNotATimeout() async throws {
        let port = try FreePort.tcp()
        do {
            _ = try await HTTPClient().send(HTTPRequest(url: "http://127.0.0.1:\(port)/", timeout: .seconds(5)))
            Issue.record("a closed port answered")
        } catch {
            guard case .connection(let url, _) = error else {
                Issue.record("expected a connection error, got \(error)")
                return
            }
            #expect(url == "http://127.0.0.1:\(port)/")
        }
    }

    /// A refusal is an answer, not an error: the caller reads its status.
    @Test func aRefusalComesBackAsItsStatusNotAsAnError() async throws {
        let directory = try TemporaryDirectory("waymark-http")
        defer { directory.remove() }
        let backend = try IngestServer(directory: directory)
        defer { backend.stop() }
        let response = try await HTTPClient().send(HTTPRequest(url: backend.baseURL + "/v1/settings", timeout: .seconds(10)))
        #expect(response.status == 401, "no bearer token")
        #expect(!response.isSuccess)
        #expect(String(decoding: response.body, as: UTF8.self).contains("invalid_token"))
    }
}
