import Foundation

/// A private glewlwyd (Debian's OIDC provider) on loopback, seeded through
/// its admin API with an OIDC plugin, a user and a confidential client.
/// Stopped by PID.
public final class Glewlwyd: @unchecked Sendable {
    public static let clientID = "waymark"
    public static let clientSecret = "waymark-secret"
    public static let username = "driver"
    public static let password = "driver-password"

    public let port: Int
    public let process: ChildProcess
    private let directory: TemporaryDirectory
    public var baseURL: String { "http://127.0.0.1:\(port)" }
    /// glewlwyd's own address unless a proxy in front of it is the issuer.
    public let issuer: String

    /// `accessTokenSeconds` sets the access token lifetime; `oneUseRefresh`
    /// makes every refresh token single-use (rotating).
    public init(directory: TemporaryDirectory, accessTokenSeconds: Int = 3600, oneUseRefresh: Bool = false, issuer: String? = nil) throws {
        self.directory = directory
        let schema = "/usr/share/doc/glewlwyd/database/init.sqlite3.sql.gz"
        guard FileManager.default.fileExists(atPath: schema) else { throw PeerError.missingProgram("glewlwyd", aptPackage: "glewlwyd") }
        _ = try ChildProcess.locate("glewlwyd", aptPackage: "glewlwyd")
        let database = directory.file("glewlwyd.db")
        // One transaction: 0.03 s instead of 2.5 s.
        try Self.run("sh", ["-c", "(echo 'BEGIN;'; zcat \(schema); echo 'COMMIT;') | sqlite3 \(database)"], package: "sqlite3", directory)
        try Self.run("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=waymark-test",
                                 "-keyout", directory.file("oidc-key.pem"), "-out", directory.file("oidc-cert.pem")], package: "openssl", directory)
        port = try FreePort.tcp()
        self.issuer = issuer ?? "http://127.0.0.1:\(port)/api/oidc"
        let config = directory.file("glewlwyd.conf")
        try """
            port=\(port)
            bind_address="127.0.0.1"
            external_url="http://127.0.0.1:\(port)"
            api_prefix="api"
            log_mode="console"
            log_level="WARNING"
            cookie_secure=0
            login_api_enabled=true
            admin_scope="g_admin"
            profile_scope="g_profile"
            user_module_path="/usr/lib/glewlwyd/user"
            client_module_path="/usr/lib/glewlwyd/client"
            user_auth_scheme_module_path="/usr/lib/glewlwyd/scheme"
            plugin_module_path="/usr/lib/glewlwyd/plugin"
            hash_algorithm="SHA512"
            database = { type = "sqlite3"; path = "\(database)"; };

            """.write(toFile: config, atomically: true, encoding: .utf8)
        process = try ChildProcess("glewlwyd", ["-c", config], aptPackage: "glewlwyd", logPath: directory.file("glewlwyd.log"))
        try FreePort.waitForListener(port: port, process: process)
        try admin(["seed", self.issuer, String(accessTokenSeconds), oneUseRefresh ? "1" : "0",
                   directory.file("oidc-key.pem"), directory.file("oidc-cert.pem")])
    }

    /// Runs `binary login` (with `arguments` before it) as this provider's
    /// user, the password on standard input, as the benches set a gateway up.
    public static func logIn(_ binary: String, _ arguments: [String], logPath: String) throws {
        let input = Pipe()
        let login = try ChildProcess(binary, arguments + ["login", "--username", username, "--password-stdin"],
                                     aptPackage: "(built by swift build)", logPath: logPath, stdin: input)
        ChildProcess.feed(input, Data((password + "\n").utf8))
        guard try login.wait(timeout: 30) == 0 else { throw PeerError.startFailed("waymark login", output: login.output) }
    }

    /// The `[Session]` and `[Backend]` sections of a waymark config for this
    /// provider's confidential client and `backend`; writes the client
    /// secret (0600) to `secretFile`.
    public func waymarkConfig(backend: IngestServer, secretFile: String) throws -> String {
        try Self.clientSecret.write(toFile: secretFile, atomically: true, encoding: .utf8)
        chmod(secretFile, 0o600)
        return """
            [Session]
            Issuer = \(issuer)
            ClientId = \(Self.clientID)
            ClientSecretFile = \(secretFile)
            Scopes = openid waymark

            [Backend]
            BaseURL = \(backend.baseURL)

            """
    }

    deinit { stop() }

    public func stop() { process.stop() }

    /// The user logs in to glewlwyd, grants the scopes, and enters the code.
    public func approve(userCode: String) throws { try admin(["approve", userCode]) }

    /// The user revokes every token issued to them.
    public func revokeAll() throws { try admin(["revoke-all"]) }

    private func admin(_ arguments: [String]) throws {
        try Self.run("/usr/bin/python3", [PeerTemplates.path("glewlwyd_admin.py"), baseURL] + arguments, package: "python3", directory)
    }

    static func run(_ program: String, _ arguments: [String], package: String, _ directory: TemporaryDirectory) throws {
        let process = try ChildProcess(program, arguments, aptPackage: package, logPath: directory.file("setup-\(UUID().uuidString).log"))
        guard try process.wait(timeout: 60) == 0 else {
            throw PeerError.startFailed("\((program as NSString).lastPathComponent) \(arguments.first ?? "")", output: process.output)
        }
    }
}
