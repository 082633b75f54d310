internal import Advertisements
internal import Telemetry
public import Vocabulary

/// Which observations become samples during a trip: fixes at most one per
/// `fixInterval`, the vehicle beacon's RSSI at most one per `beaconInterval`,
/// a sensor's reading when it changes or after `sensorInterval`.
public struct SamplePolicy: Sendable, Equatable {
    /// Sample intervals, in seconds; from `[Recording]` in the gateway's configuration.
    public struct Options: Sendable, Equatable {
        public var fixInterval: Double
        public var beaconInterval: Double
        public var sensorInterval: Double

        public init(fixInterval: Double, beaconInterval: Double, sensorInterval: Double) {
            self.fixInterval = fixInterval
            self.beaconInterval = beaconInterval
            self.sensorInterval = sensorInterval
        }
    }

    public let options: Options
    private var lastFix: Double?
    private var lastBeacon: Double?
    private var lastSensor: [SensorID: (time: Double, advert: Advertisement)] = [:]

    public init(options: Options) {
        self.options = options
    }

    public static func == (lhs: SamplePolicy, rhs: SamplePolicy) -> Bool {
        lhs.options == rhs.options && lhs.lastFix == rhs.lastFix && lhs.lastBeacon == rhs.lastBeacon
    }

    /// The sample for `observation` in trip `tripID`, or nil when rate-limited.
    public mutating func sample(_ observation: Observation, tripID: TripID) -> RecordedSample? {
        switch observation {
        case .fix(let fix, let at):
            guard Self.due(lastFix, at, options.fixInterval) else { return nil }
            lastFix = at
            return RecordedSample(time: at, tripID: tripID, payload: .fix(fix))
        case .vehicle(let rssi, let at):
            guard Self.due(lastBeacon, at, options.beaconInterval) else { return nil }
            lastBeacon = at
            return RecordedSample(time: at, tripID: tripID, payload: .beacon(rssi: rssi))
        case .sensor(let id, let advert, let at):
            if let last = lastSensor[id], last.advert == advert, !Self.due(last.time, at, options.sensorInterval) { return nil }
            lastSensor[id] = (at, advert)
            return RecordedSample(time: at, tripID: tripID, payload: .sensor(id, advert))
        }
    }

    /// Forgets the rate limits, so a new trip starts with fresh samples.
    public mutating func reset() {
        lastFix = nil
        lastBeacon = nil
        lastSensor = [:]
    }

    private static func due(_ last: Double?, _ now: Double, _ interval: Double) -> Bool {
        guard let last else { return true }
        return now - last >= interval || now < last
    }
}
