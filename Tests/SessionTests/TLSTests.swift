import Foundation
import HTTP
import PeerHarness
import Session
import Storage
import Testing

/// An https issuer whose certificate comes from a private CA.
struct TLSTests {
    @Test func anUntrustedIssuerFailsWithATLSErrorUnlessItsCAIsConfigured() async throws {
        let directory = try TemporaryDirectory("waymark-tls")
        defer { directory.remove() }
        func openssl(_ arguments: [String]) throws {
            let process = try ChildProcess("openssl", arguments, aptPackage: "openssl", logPath: directory.file("openssl.log"))
            guard try process.wait(timeout: 60) == 0 else { throw PeerError.startFailed("openssl", output: process.output) }
        }
        try openssl(["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=Waymark Test CA",
                     "-keyout", directory.file("ca.key"), "-out", directory.file("ca.pem")])
        try openssl(["req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=127.0.0.1",
                     "-keyout", directory.file("server.key"), "-out", directory.file("server.csr")])
        try "subjectAltName=IP:127.0.0.1\n".write(toFile: directory.file("san.ext"), atomically: true, encoding: .utf8)
        try openssl(["x509", "-req", "-in", directory.file("server.csr"), "-CA", directory.file("ca.pem"), "-CAkey", directory.file("ca.key"),
                     "-CAcreateserial", "-days", "2", "-extfile", directory.file("san.ext"), "-out", directory.file("server.pem")])
        let port = try FreePort.tcp()
        let server = try ChildProcess("/usr/bin/python3", [PeerTemplates.path("tls_issuer.py"), String(port), directory.file("server.pem"), directory.file("server.key")],
                                      aptPackage: "python3", logPath: directory.file("tls.log"))
        defer { server.stop() }
        try FreePort.waitForListener(port: port, process: server)
        let database = try Database(path: directory.file("data/waymark.db"), migrations: Migration.numbered([SessionStore.schema] + SessionStore.changes))
        func manager(caFile: String?) -> SessionManager {
            SessionManager(configuration: SessionConfiguration(issuer: "https://127.0.0.1:\(port)", clientID: "waymark"),
                           store: SessionStore(database: database), http: HTTPClient(caFile: caFile))
        }

        do {
            _ = try await manager(caFile: nil).discover()
            Issue.record("an untrusted certificate was accepted")
        } catch {
            guard case .unreachable(.tls(let url, let detail)) = error else {
                Issue.record("expected a TLS error, got \(error)")
                return
            }
            #expect(url == "https://127.0.0.1:\(port)/.well-known/openid-configuration")
            #expect(error.description.contains("TLS verification failed"), "\(detail)")
        }
        let metadata = try await manager(caFile: directory.file("ca.pem")).discover()
        #expect(metadata.issuer == "https://127.0.0.1:\(port)")
    }
}
