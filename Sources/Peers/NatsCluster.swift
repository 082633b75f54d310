import Foundation

/// Three `nats-server` nodes joined by routes on loopback ports, JetStream
/// on, MQTT on each, the MQTT streams (sessions and QoS 1 messages)
/// replicated on all three: a client may reconnect to any node and find
/// its session. Each node is started and stopped (or killed) by PID.
public final class NatsCluster: @unchecked Sendable {
    public let nodes: [NatsServer]

    public init(directory: TemporaryDirectory) throws {
        let routes = try (0..<3).map { _ in try FreePort.tcp() }
        var nodes: [NatsServer] = []
        for route in routes {
            nodes.append(try NatsServer(directory: directory, cluster: NatsServer.Cluster(name: "waymark-test", routePort: route, routes: routes)))
        }
        self.nodes = nodes
    }

    deinit { stop() }

    public func stop() { nodes.forEach { $0.stop() } }
}
