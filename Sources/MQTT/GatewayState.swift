internal import Basics
public import Telemetry
public import Vocabulary

/// The gateway's state on `{prefix}/state` (retained).
public struct GatewayState: Encodable, Sendable, Equatable {
    /// The user wants recording, and the session is authorized.
    public var armed: Bool
    /// Recording runs: every requirement is met.
    public var running: Bool
    /// The open trip's id, if any.
    public var trip: TripID?
    /// Samples the MQTT sink has still to publish.
    public var queueDepth: Int
    /// `mgmt`, `passive` or `active`, while scanning.
    public var scanMode: String?
    /// What the gateway runs (its scan mode is `scanMode`).
    public var info: GatewayInfo?
    /// The broker (`host:port`) this state went to: with a cluster's nodes
    /// listed, the one in use.
    public var broker: String?

    public init(armed: Bool, running: Bool, trip: TripID?, queueDepth: Int, scanMode: String?) {
        (self.armed, self.running, self.trip, self.queueDepth, self.scanMode) = (armed, running, trip, queueDepth, scanMode)
    }

    /// Every key always, null when absent, so a template never meets an
    /// undefined one; with what the gateway runs beside them.
    public func encode(to encoder: any Encoder) throws {
        var keys = encoder.container(keyedBy: NamedKey.self)
        try keys.encode(armed, forKey: NamedKey("armed"))
        try keys.encode(running, forKey: NamedKey("running"))
        try keys.encode(trip, forKey: NamedKey("trip"))
        try keys.encode(trip != nil, forKey: NamedKey("in_trip"))
        try keys.encode(queueDepth, forKey: NamedKey("queue_depth"))
        try keys.encode(scanMode, forKey: NamedKey("scan_mode"))
        try keys.encode(broker, forKey: NamedKey("broker"))
        // The live scan mode above, not the last one chosen.
        for (name, value) in info?.fields ?? [:] where name != "scan_mode" { try keys.encode(value, forKey: NamedKey(name)) }
    }
}
