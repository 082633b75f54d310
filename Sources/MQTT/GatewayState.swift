public import Telemetry

/// The gateway's state on `{prefix}/state` (retained).
public struct GatewayState: Encodable, Sendable, Equatable {
    /// The user wants recording, and the session is authorized.
    public var armed: Bool
    /// Recording runs: every requirement is met.
    public var running: Bool
    /// The open trip's id, if any.
    public var trip: String?
    /// Samples the MQTT sink has still to publish.
    public var queueDepth: Int
    /// `mgmt`, `passive` or `active`, while scanning.
    public var scanMode: String?
    /// What the gateway runs (its scan mode is `scanMode`).
    public var info: GatewayInfo?

    enum CodingKeys: String, CodingKey {
        case armed, running, trip, inTrip = "in_trip", queueDepth = "queue_depth", scanMode = "scan_mode"
        case version, packageVersion = "package_version", architecture, kernel, bluezVersion = "bluez_version"
    }

    public init(armed: Bool, running: Bool, trip: String?, queueDepth: Int, scanMode: String?) {
        (self.armed, self.running, self.trip, self.queueDepth, self.scanMode) = (armed, running, trip, queueDepth, scanMode)
    }

    /// Every key always, null when absent, so a template never meets an undefined one.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(armed, forKey: .armed)
        try container.encode(running, forKey: .running)
        try container.encode(trip, forKey: .trip)
        try container.encode(trip != nil, forKey: .inTrip)
        try container.encode(queueDepth, forKey: .queueDepth)
        try container.encode(scanMode, forKey: .scanMode)
        try container.encode(info?.version, forKey: .version)
        try container.encode(info?.packageVersion, forKey: .packageVersion)
        try container.encode(info?.architecture, forKey: .architecture)
        try container.encode(info?.kernel, forKey: .kernel)
        try container.encode(info?.bluezVersion, forKey: .bluezVersion)
    }
}
