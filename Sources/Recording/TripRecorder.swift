internal import Telemetry
public import Vocabulary

/// Turns observations into samples: the trip detector decides when a trip
/// runs, the sample policy what of it is kept. Trip starts and ends become
/// event samples too. Pure; the caller commits the samples and calls `tick`
/// at `nextDeadline`.
public struct TripRecorder: Sendable, Equatable {
    public private(set) var detector: TripDetector
    public private(set) var policy: SamplePolicy
    /// The running trip's id: `trip-` and its start in milliseconds since 1970.
    public private(set) var tripID: TripID?
    /// Wall clock minus the timeline's clock, for trip ids only: the caller
    /// times trips on the boot clock, and ids are wall-clock milliseconds.
    public var wallOffset = 0.0

    public init(trips: TripDetector.Options, samples: SamplePolicy.Options) {
        detector = TripDetector(options: trips)
        policy = SamplePolicy(options: samples)
    }

    /// Continues a trip a previous process left open (see `TripDetector.restore`).
    public mutating func restore(tripID: TripID, start: Double, lastSeen: Double) {
        self.tripID = tripID
        detector.restore(start: start, lastSeen: lastSeen)
    }

    public mutating func observe(_ observation: Observation) -> [RecordedSample] {
        var out: [RecordedSample] = []
        if case .vehicle(_, let at) = observation { out += apply(detector.sighted(at: at)) }
        if detector.isActive, let tripID, let sample = policy.sample(observation, tripID: tripID) { out.append(sample) }
        return out
    }

    public mutating func tick(at now: Double) -> [RecordedSample] {
        apply(detector.tick(at: now))
    }

    public var nextDeadline: Double? { detector.nextDeadline }

    private mutating func apply(_ actions: [TripDetector.Action]) -> [RecordedSample] {
        actions.map { action in
            switch action {
            case .started(let at):
                let id = TripID(startingAt: at + wallOffset)
                tripID = id
                policy.reset()
                return RecordedSample(time: at, tripID: id, payload: .event(Event(.tripStarted)), tripAction: action)
            case .resumed(let at):
                return RecordedSample(time: at, tripID: tripID, payload: .event(Event(.tripResumed)), tripAction: action)
            case .ended(let at, let reason):
                defer { tripID = nil }
                return RecordedSample(time: at, tripID: tripID, payload: .event(Event(.tripEnded, [.reason: reason.rawValue])), tripAction: action)
            }
        }
    }
}
