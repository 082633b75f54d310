import Foundation

/// Debian's `nats-server` with JetStream and its MQTT listener on loopback
/// ports: a broker that speaks MQTT 3.1.1 only (it answers an MQTT 5
/// CONNECT with reason 0x84), as the clustered brokers Debian ships do.
/// One user, `gateway`, with a password.
public final class NatsServer: @unchecked Sendable {
    /// The MQTT listener's port.
    public let port: Int
    public let username = "gateway"
    public let password = "broker-secret-7"
    public let process: ChildProcess
    private let directory: TemporaryDirectory

    public init(directory: TemporaryDirectory) throws {
        self.directory = directory
        port = try FreePort.tcp()
        let client = try FreePort.tcp()
        let store = directory.file("nats-\(port)")
        try FileManager.default.createDirectory(atPath: store, withIntermediateDirectories: true)
        let config = directory.file("nats-\(port).conf")
        try """
            server_name: waymark-test-\(port)
            listen: 127.0.0.1:\(client)
            jetstream { store_dir: "\(store)" }
            authorization { users: [ { user: \(username), password: \(password) } ] }
            mqtt { listen: 127.0.0.1:\(port) }

            """.write(toFile: config, atomically: true, encoding: .utf8)
        process = try ChildProcess("nats-server", ["-c", config], aptPackage: "nats-server", logPath: directory.file("nats-\(port).log"))
        try FreePort.waitForListener(port: port, process: process)
    }

    deinit { stop() }

    public func stop() { process.stop() }

    /// Publishes one message with `mosquitto_pub` over MQTT 3.1.1, as another client would.
    public func publish(_ topic: String, _ payload: String) throws {
        let client = try ChildProcess("mosquitto_pub", ["-h", "127.0.0.1", "-p", String(port), "-u", username, "-P", password, "-V", "mqttv311",
                                                        "-q", "1", "-t", topic, "-m", payload],
                                      aptPackage: "mosquitto-clients", logPath: directory.file("pub-\(UInt32.random(in: 0...UInt32.max)).log"))
        guard try client.wait(timeout: 10) == 0 else { throw PeerError.startFailed("mosquitto_pub", output: client.output) }
    }

    /// A `mosquitto_sub` speaking MQTT 3.1.1 that prints every message on `topics` as `topic payload` lines.
    public func subscriber(_ topics: [String], id: String = "waymark-test-subscriber") throws -> ChildProcess {
        try ChildProcess("mosquitto_sub", ["-h", "127.0.0.1", "-p", String(port), "-u", username, "-P", password, "-i", id, "-v", "-V", "mqttv311", "-q", "1"]
                         + topics.flatMap { ["-t", $0] },
                         aptPackage: "mosquitto-clients", logPath: directory.file("sub-\(id)-\(UInt32.random(in: 0...UInt32.max)).log"))
    }
}
