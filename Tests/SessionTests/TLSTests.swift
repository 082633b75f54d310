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
        let certificates = try TestCertificates(directory: directory)
        let port = try FreePort.tcp()
        let server = try ChildProcess("/usr/bin/python3", [PeerTemplates.path("tls_issuer.py"), String(port), certificates.certificateFile, certificates.keyFile],
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
        let metadata = try await manager(caFile: certificates.caFile).discover()
        #expect(metadata.issuer == "https://127.0.0.1:\(port)")
    }
}
