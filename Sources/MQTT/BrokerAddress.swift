/// One broker, or one node of a cluster: where a connection goes.
public struct BrokerAddress: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: Int

    public init(host: String, port: Int) { (self.host, self.port) = (host, port) }

    /// `host:port`.
    public var description: String { "\(host):\(port)" }
}
