import Foundation

/// A private CA and a server certificate it signed for 127.0.0.1 (in the
/// subject alternative name), made with Debian's `openssl` for TLS peers.
public struct TestCertificates: Sendable {
    public let caFile: String
    public let certificateFile: String
    public let keyFile: String

    public init(directory: TemporaryDirectory, name: String = "server") throws {
        func openssl(_ arguments: [String]) throws {
            let process = try ChildProcess("openssl", arguments, aptPackage: "openssl", logPath: directory.file("openssl-\(name).log"))
            guard try process.wait(timeout: 60) == 0 else { throw PeerError.startFailed("openssl", output: process.output) }
        }
        caFile = directory.file("\(name)-ca.pem")
        certificateFile = directory.file("\(name).pem")
        keyFile = directory.file("\(name).key")
        try openssl(["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=Waymark Test CA",
                     "-keyout", directory.file("\(name)-ca.key"), "-out", caFile])
        try openssl(["req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=127.0.0.1",
                     "-keyout", keyFile, "-out", directory.file("\(name).csr")])
        try "subjectAltName=IP:127.0.0.1\n".write(toFile: directory.file("\(name)-san.ext"), atomically: true, encoding: .utf8)
        try openssl(["x509", "-req", "-in", directory.file("\(name).csr"), "-CA", caFile, "-CAkey", directory.file("\(name)-ca.key"),
                     "-CAcreateserial", "-days", "2", "-extfile", directory.file("\(name)-san.ext"), "-out", certificateFile])
    }
}
