import Foundation

/// Debian's `mosquitto` broker on a loopback port, with a generated config:
/// persistence on, a password file with one user, and optionally an ACL
/// (`acl` is the file's text), and TLS with `certificates` (then only TLS),
/// requiring clients to show a certificate signed by `clientCA` if given.
/// `restart()` stops it and starts it again on the same port with the same
/// store, as a broker restart in the field.
public final class Mosquitto: @unchecked Sendable {
    public let port: Int
    public let username = "gateway"
    public let password = "broker-secret-7"
    public let passwordFile: String
    public private(set) var process: ChildProcess
    private let directory: TemporaryDirectory
    private let config: String

    public init(directory: TemporaryDirectory, acl: String? = nil, certificates: TestCertificates? = nil, clientCA: String? = nil) throws {
        self.directory = directory
        port = try FreePort.tcp()
        let store = directory.file("mosquitto-\(port)")
        try FileManager.default.createDirectory(atPath: store, withIntermediateDirectories: true)
        passwordFile = directory.file("mqtt-password")
        try password.write(toFile: passwordFile, atomically: true, encoding: .utf8)
        chmod(passwordFile, 0o600)
        let users = directory.file("mosquitto-\(port).passwd")
        let hasher = try ChildProcess("mosquitto_passwd", ["-b", "-c", users, username, password], aptPackage: "mosquitto",
                                      logPath: directory.file("mosquitto_passwd.log"))
        guard try hasher.wait(timeout: 10) == 0 else { throw PeerError.startFailed("mosquitto_passwd", output: hasher.output) }
        var text = """
            user root
            listener \(port) 127.0.0.1
            \(certificates.map { "certfile \($0.certificateFile)\nkeyfile \($0.keyFile)" } ?? "")
            \(clientCA.map { "cafile \($0)\nrequire_certificate true" } ?? "")
            allow_anonymous false
            password_file \(users)
            persistence true
            persistence_location \(store)/
            log_dest stderr
            log_type all

            """
        if let acl {
            let path = directory.file("mosquitto-\(port).acl")
            try acl.write(toFile: path, atomically: true, encoding: .utf8)
            text += "acl_file \(path)\n"
        }
        config = directory.file("mosquitto-\(port).conf")
        try text.write(toFile: config, atomically: true, encoding: .utf8)
        process = try Self.start(config: config, port: port, log: directory.file("mosquitto-\(port).log"))
    }

    private static func start(config: String, port: Int, log: String) throws -> ChildProcess {
        let process = try ChildProcess("mosquitto", ["-c", config], aptPackage: "mosquitto", logPath: log)
        try FreePort.waitForListener(port: port, process: process)
        return process
    }

    deinit { stop() }

    public func stop() { process.stop() }

    /// Stops the broker (it saves its store on SIGTERM) and starts it again.
    public func restart() throws {
        process.stop()
        try startAgain()
    }

    /// Replaces the ACL's text (the broker must have been made with one); the
    /// broker reads it when it starts again.
    public func replaceACL(_ acl: String) throws {
        let path = directory.file("mosquitto-\(port).acl")
        guard FileManager.default.fileExists(atPath: path) else { throw PeerError.startFailed("mosquitto", output: "no ACL to replace") }
        try acl.write(toFile: path, atomically: true, encoding: .utf8)
    }

    /// Starts the broker again after `stop`, from its saved store, on the same port.
    public func startAgain() throws {
        process = try Self.start(config: config, port: port, log: directory.file("mosquitto-\(port)-\(UInt32.random(in: 0...UInt32.max)).log"))
    }

    /// A `mosquitto_sub` client that prints every message on `topics` as
    /// `topic payload` lines to its log, with a persistent session (QoS 1,
    /// id `id`) so it gets what was published while the broker was down.
    ///
    /// With `persistent` false, a clean session at QoS 0 instead: the broker
    /// forwards it each message once as it arrives and never again, so what
    /// it prints is what publishers sent while it was connected.
    public func subscriber(_ topics: [String], id: String = "waymark-test-subscriber", persistent: Bool = true) throws -> ChildProcess {
        try ChildProcess("mosquitto_sub", ["-h", "127.0.0.1", "-p", String(port), "-u", username, "-P", password, "-i", id, "-v"]
                         + (persistent ? ["-q", "1", "-c"] : ["-q", "0"])
                         + topics.flatMap { ["-t", $0] },
                         aptPackage: "mosquitto-clients", logPath: directory.file("sub-\(id)-\(UInt32.random(in: 0...UInt32.max)).log"))
    }

    /// Publishes one message with `mosquitto_pub`, as another client would.
    public func publish(_ topic: String, _ payload: String) throws {
        let client = try ChildProcess("mosquitto_pub", ["-h", "127.0.0.1", "-p", String(port), "-u", username, "-P", password, "-q", "1",
                                                        "-t", topic, "-m", payload],
                                      aptPackage: "mosquitto-clients", logPath: directory.file("pub-\(UInt32.random(in: 0...UInt32.max)).log"))
        guard try client.wait(timeout: 10) == 0 else { throw PeerError.startFailed("mosquitto_pub", output: client.output) }
    }
}
