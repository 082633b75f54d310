/// Decides when a trip starts and ends from sightings of the paired vehicle
/// beacon. Pure: times are seconds on one timeline, passed in by the caller,
/// which also calls `tick` at `nextDeadline`.
///
/// idle → starting (a sighting) → active (N sightings within the start
/// window) → ending (unseen for the lost timeout) → idle (unseen for the
/// reopen window: the trip ended when the beacon was last seen). A sighting
/// while ending resumes the same trip. A trip longer than the maximum is
/// split in two.
public struct TripDetector: Sendable, Equatable {
    /// Trip timing, in seconds; from `[Recording]` in the gateway's configuration.
    public struct Options: Sendable, Equatable {
        public var startSightings: Int
        public var startWindow: Double
        public var lostTimeout: Double
        public var reopenWindow: Double
        public var maxDuration: Double

        public init(startSightings: Int, startWindow: Double, lostTimeout: Double, reopenWindow: Double, maxDuration: Double) {
            self.startSightings = startSightings
            self.startWindow = startWindow
            self.lostTimeout = lostTimeout
            self.reopenWindow = reopenWindow
            self.maxDuration = maxDuration
        }
    }

    public enum State: Sendable, Equatable {
        case idle
        /// Sightings so far inside the start window.
        case starting(sightings: [Double])
        case active(start: Double, lastSeen: Double)
        case ending(start: Double, lastSeen: Double)
    }

    public enum Action: Sendable, Equatable {
        case started(at: Double)
        /// The beacon came back within the reopen window: the same trip goes on.
        case resumed(at: Double)
        case ended(at: Double, reason: EndReason)
    }

    public enum EndReason: String, Sendable, Equatable, Codable {
        case beaconLost
        case maxDuration
    }

    public let options: Options
    public private(set) var state: State = .idle

    public init(options: Options) {
        self.options = options
    }

    /// Picks up a trip a previous process left open: it counts as lost since
    /// `lastSeen`, so the beacon back within the reopen window continues it.
    public mutating func restore(start: Double, lastSeen: Double) {
        state = .ending(start: start, lastSeen: lastSeen)
    }

    public var isActive: Bool {
        if case .active = state { true } else { false }
    }

    public mutating func sighted(at time: Double) -> [Action] {
        switch state {
        case .idle:
            return startIfEnough([time])
        case .starting(let sightings):
            return startIfEnough(sightings.filter { time - $0 <= options.startWindow } + [time])
        case .active(let start, _):
            if time - start >= options.maxDuration {
                state = .active(start: time, lastSeen: time)
                return [.ended(at: time, reason: .maxDuration), .started(at: time)]
            }
            state = .active(start: start, lastSeen: max(time, lastSeenTime ?? time))
            return []
        case .ending(let start, let lastSeen):
            if time - lastSeen <= options.reopenWindow {
                state = .active(start: start, lastSeen: time)
                return [.resumed(at: time)]
            }
            state = .idle
            return [.ended(at: lastSeen, reason: .beaconLost)] + sighted(at: time)
        }
    }

    /// Time has passed without a sighting.
    public mutating func tick(at now: Double) -> [Action] {
        switch state {
        case .idle:
            return []
        case .starting(let sightings):
            let kept = sightings.filter { now - $0 <= options.startWindow }
            state = kept.isEmpty ? .idle : .starting(sightings: kept)
            return []
        case .active(let start, let lastSeen):
            if now - start >= options.maxDuration, now - lastSeen < options.lostTimeout {
                state = .active(start: now, lastSeen: lastSeen)
                return [.ended(at: now, reason: .maxDuration), .started(at: now)]
            }
            if now - lastSeen >= options.lostTimeout {
                state = .ending(start: start, lastSeen: lastSeen)
                return tick(at: now)
            }
            return []
        case .ending(_, let lastSeen):
            guard now - lastSeen > options.reopenWindow else { return [] }
            state = .idle
            return [.ended(at: lastSeen, reason: .beaconLost)]
        }
    }

    /// When `tick` has something to decide next; nil when only a sighting can change anything.
    public var nextDeadline: Double? {
        switch state {
        case .idle: nil
        case .starting(let sightings): sightings.first.map { $0 + options.startWindow }
        case .active(let start, let lastSeen): min(lastSeen + options.lostTimeout, start + options.maxDuration)
        case .ending(_, let lastSeen): lastSeen + options.reopenWindow
        }
    }

    private var lastSeenTime: Double? {
        if case .active(_, let lastSeen) = state { lastSeen } else { nil }
    }

    private mutating func startIfEnough(_ sightings: [Double]) -> [Action] {
        guard sightings.count >= options.startSightings, let first = sightings.first else {
            state = .starting(sightings: sightings)
            return []
        }
        state = .active(start: first, lastSeen: sightings.last ?? first)
        return [.started(at: first)]
    }
}
