import Foundation
import PeerHarness
import Testing

/// `waymark login`, `whoami` and `logout` as separate processes, against a
/// real glewlwyd and the test backend.
@Suite(.serialized)
struct SessionCommandTests {
    struct Rig {
        let work: TemporaryDirectory
        let provider: Glewlwyd
        let backend: IngestServer
        var arguments: [String] { ["--config", work.file("waymark.conf"), "--data-dir", work.file("data")] }

        init(accessTokenSeconds: Int = 3600) throws {
            work = try TemporaryDirectory("waymark-login")
            provider = try Glewlwyd(directory: work, accessTokenSeconds: accessTokenSeconds)
            backend = try IngestServer(directory: work)
            try provider.waymarkConfig(backend: backend, secretFile: work.file("client-secret"))
                .write(toFile: work.file("waymark.conf"), atomically: true, encoding: .utf8)
        }

        func run(_ command: [String], stdin: String? = nil, environment: [String: String] = [:]) throws -> (status: Int32, output: String) {
            let input = stdin.map { _ in Pipe() }
            let process = try ChildProcess(try WaymarkBinary.path, arguments + command, aptPackage: "(built by swift build)",
                                           environment: environment, logPath: work.file("waymark-\(UUID().uuidString).log"), stdin: input)
            if let stdin, let input {
                ChildProcess.feed(input, Data(stdin.utf8))
            }
            return (try process.wait(timeout: 60), process.output)
        }

        func stop() {
            provider.stop()
            backend.stop()
            work.remove()
        }
    }

    /// The whole life of a session through the CLI, and a grep of every log
    /// and output for the tokens it held.
    @Test func deviceLoginPersistsTheSessionForLaterProcessesAndLogoutEndsIt() async throws {
        let rig = try Rig()
        defer { rig.stop() }
        let login = try ChildProcess(try WaymarkBinary.path, rig.arguments + ["login"], aptPackage: "(built by swift build)",
                                     logPath: rig.work.file("waymark-login.log"))
        let userCode = try await withDeadline(.seconds(30), "the login code") {
            while true {
                if let range = login.output.range(of: #"enter the code [A-Z0-9-]+"#, options: .regularExpression) {
                    return String(login.output[range].dropFirst("enter the code ".count))
                }
                try await Task.sleep(for: .milliseconds(50))
            }
        }
        #expect(login.output.contains("▀") || login.output.contains("▄"), "a QR code is drawn")
        try rig.provider.approve(userCode: userCode)
        #expect(try login.wait(timeout: 30) == 0, "\(login.output)")
        #expect(login.output.contains("Logged in as Dana Driver <dana@example.test>: user user-1, vehicle vehicle-7."))

        // A new process is authorized from the store alone.
        let whoami = try rig.run(["whoami", "--json"])
        #expect(whoami.status == 0)
        let identity = try #require(try JSONSerialization.jsonObject(with: Data(whoami.output.utf8)) as? [String: Any])
        #expect(identity["authorized"] as? Bool == true && identity["vehicle_id"] as? String == "vehicle-7")

        // The tokens as stored, to look for them everywhere afterwards.
        let tokens = try Self.storedTokens(rig.work.file("data/waymark.db"))
        #expect(tokens.count == 3)

        // A valid session: login says so without the provider (now stopped).
        rig.provider.stop()
        let again = try rig.run(["login"])
        #expect(again.status == 0)
        #expect(again.output.contains("Already logged in as Dana Driver"))

        let logout = try rig.run(["logout"])
        #expect(logout.status == 0 && logout.output.contains("Logged out."))
        let after = try rig.run(["whoami"])
        #expect(after.status == 1 && after.output.contains("Not logged in."))

        var leaks: [String] = []
        for file in try FileManager.default.contentsOfDirectory(atPath: rig.work.path) where file.hasSuffix(".log") {
            let text = (try? String(contentsOfFile: rig.work.file(file), encoding: .utf8)) ?? ""
            for token in tokens where text.contains(token) { leaks.append(file) }
        }
        #expect(leaks.isEmpty, "tokens found in \(leaks)")
    }

    @Test func passwordLoginReadsThePasswordFromStandardInput() throws {
        let rig = try Rig()
        defer { rig.stop() }
        let wrong = try rig.run(["login", "--username", Glewlwyd.username, "--password-stdin"], stdin: "nope\n")
        #expect(wrong.status != 0 && wrong.output.contains("denied"))
        let login = try rig.run(["login", "--username", Glewlwyd.username, "--password-stdin"], stdin: Glewlwyd.password + "\n")
        #expect(login.status == 0, "\(login.output)")
        #expect(!login.output.contains(Glewlwyd.password))
        #expect(try rig.run(["whoami"]).output.contains("Dana Driver <dana@example.test>: user user-1, vehicle vehicle-7"))
    }

    /// `logout` is the only way to clear a session: in the sources, the
    /// clearing function has one definition and one caller, inside `logout()`.
    @Test func onlyLogoutClearsTheSession() throws {
        let sources = Checkout.root.appendingPathComponent("Sources")
        var uses: [String] = []
        let files = FileManager.default.enumerator(atPath: sources.path)?.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") } ?? []
        for file in files {
            let text = try String(contentsOfFile: sources.appendingPathComponent(file).path, encoding: .utf8)
            for line in text.split(separator: "\n") where line.contains("clearForLogout(") { uses.append("\(file): \(line.trimmingCharacters(in: .whitespaces))") }
        }
        #expect(uses.count == 2, "\(uses)")
        #expect(uses.contains { $0.hasPrefix("Session/SessionStore.swift: func clearForLogout()") })
        #expect(uses.contains { $0.hasPrefix("Session/SessionManager.swift: taken = try store.clearForLogout()") })
        let manager = try String(contentsOfFile: sources.appendingPathComponent("Session/SessionManager.swift").path, encoding: .utf8)
        let logout = try #require(manager.range(of: "public func logout() async {"))
        let next = try #require(manager.range(of: "\n    }\n", range: logout.upperBound..<manager.endIndex))
        #expect(manager[logout.lowerBound..<next.upperBound].contains("store.clearForLogout()"))
    }

    static func storedTokens(_ path: String) throws -> [String] {
        let process = try ChildProcess("sqlite3", [path, "SELECT access_token, refresh_token, id_token FROM session"], aptPackage: "sqlite3",
                                       logPath: NSTemporaryDirectory() + "waymark-tokens-\(UUID().uuidString).txt")
        _ = try process.wait(timeout: 10)
        defer { try? FileManager.default.removeItem(atPath: process.logPath) }
        return process.output.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: "|").map(String.init).filter { $0.count > 16 }
    }
}
