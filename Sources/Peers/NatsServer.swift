import Foundation

/// Debian's `nats-server` with JetStream and its MQTT listener on loopback
/// ports: a broker that speaks MQTT 3.1.1 only (it answers an MQTT 5
/// CONNECT with reason 0x84), as the clustered brokers Debian ships do.
/// One user, `gateway`, with a password. With `cluster`, a node of a
/// route cluster (see `NatsCluster`), its MQTT streams replicated on three.
public final class NatsServer: @unchecked Sendable {
    /// The MQTT listener's port.
    public let port: Int
    public let username = "gateway"
    public let password = "broker-secret-7"
    public private(set) var process: ChildProcess
    private let directory: TemporaryDirectory
    private let config: String

    /// A node's place in a cluster: the cluster's name, this node's route
    /// port, and every node's route port (its own included).
    public struct Cluster: Sendable {
        public var name: String
        public var routePort: Int
        public var routes: [Int]

        public init(name: String, routePort: Int, routes: [Int]) { (self.name, self.routePort, self.routes) = (name, routePort, routes) }
    }

    public init(directory: TemporaryDirectory, cluster: Cluster? = nil) throws {
        self.directory = directory
        port = try FreePort.tcp()
        let client = try FreePort.tcp()
        let store = directory.file("nats-\(port)")
        try FileManager.default.createDirectory(atPath: store, withIntermediateDirectories: true)
        config = directory.file("nats-\(port).conf")
        let routes = cluster.map { cluster in
            "cluster { name: \(cluster.name), listen: 127.0.0.1:\(cluster.routePort), routes: [\(cluster.routes.map { "nats-route://127.0.0.1:\($0)" }.joined(separator: ", "))] }"
        }
        try """
            server_name: waymark-test-\(port)
            listen: 127.0.0.1:\(client)
            jetstream { store_dir: "\(store)" }
            authorization { users: [ { user: \(username), password: \(password) } ] }
            mqtt { listen: 127.0.0.1:\(port)\(cluster == nil ? "" : ", stream_replicas: 3") }
            \(routes ?? "")

            """.write(toFile: config, atomically: true, encoding: .utf8)
        process = try Self.start(config: config, port: port, log: directory.file("nats-\(port).log"))
    }

    private static func start(config: String, port: Int, log: String) throws -> ChildProcess {
        let process = try ChildProcess("nats-server", ["-c", config], aptPackage: "nats-server", logPath: log)
        try FreePort.waitForListener(port: port, process: process)
        return process
    }

    deinit { stop() }

    public func stop() { process.stop() }

    /// Starts the node again after it was stopped or killed, from its store, on the same ports.
    public func startAgain() throws {
        process = try Self.start(config: config, port: port, log: directory.file("nats-\(port)-\(UInt32.random(in: 0...UInt32.max)).log"))
    }

    /// Publishes one message with `mosquitto_pub` over MQTT 3.1.1, as another client would.
    public func publish(_ topic: String, _ payload: String) throws {
        let client = try ChildProcess("mosquitto_pub", ["-h", "127.0.0.1", "-p", String(port), "-u", username, "-P", password, "-V", "mqttv311",
                                                        "-q", "1", "-t", topic, "-m", payload],
                                      aptPackage: "mosquitto-clients", logPath: directory.file("pub-\(UInt32.random(in: 0...UInt32.max)).log"))
        guard try client.wait(timeout: 10) == 0 else { throw PeerError.startFailed("mosquitto_pub", output: client.output) }
    }

    /// A `mosquitto_sub` speaking MQTT 3.1.1 that prints every message on
    /// `topics` as `topic payload` lines; with `persistent`, its session
    /// outlives it (and, in a cluster, the node it was made on).
    public func subscriber(_ topics: [String], id: String = "waymark-test-subscriber", persistent: Bool = false) throws -> ChildProcess {
        try ChildProcess("mosquitto_sub", ["-h", "127.0.0.1", "-p", String(port), "-u", username, "-P", password, "-i", id, "-v", "-V", "mqttv311", "-q", "1"]
                         + (persistent ? ["-c"] : [])
                         + topics.flatMap { ["-t", $0] },
                         aptPackage: "mosquitto-clients", logPath: directory.file("sub-\(id)-\(UInt32.random(in: 0...UInt32.max)).log"))
    }
}
