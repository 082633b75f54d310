package import Basics
package import Capture
package import Pairings
package import Radio
import Synchronization
package import Telemetry
package import Vocabulary

/// Counts what the radio does between two health reports: adverts per
/// adapter and scan mode, restarts, recovery steps, and the strongest
/// signal of each paired device. Updated from the scanner's queue for
/// every advert, so that is a lock and one addition, no more.
///
/// With a capture, everything it counts goes into the capture under the
/// same lock, in the order it was counted: replay feeds a meter of its own
/// the same records, and its reports hold the same counts.
package final class RadioHealthMeter: Sendable {
    /// One adapter in one scan mode.
    private struct Reception: Hashable {
        var adapter: AdapterName
        var mode: String
    }

    private struct State {
        /// `hci0`, while scanning with it.
        var adapter: AdapterName?
        /// The scan mode, as last reported (it may come before the adapter is known).
        var mode: String?
        /// Adverts per adapter and mode, but for those counted in `current`.
        var counts: [Reception: Int] = [:]
        /// What adverts are counted under now, and how many so far; nil while not scanning.
        var current: (reception: Reception, count: Int)?
        var restarts = 0
        /// Strangers' adverts shed unread while the scanner's reader was behind.
        var shed = 0
        var steps: [String] = []
        /// Identity → strongest RSSI (nil when seen without one).
        var seen: [DeviceIdentity: Int?] = [:]
        /// The watchdog's last step, and `current`'s count when it was
        /// taken: the same count now means no advert came since.
        var lastStep: (name: String, count: Int)?

        /// The watchdog's last step, if no advert came after it.
        var stepSinceAdvert: String? {
            guard let step = lastStep, step.count == (current?.count ?? 0) else { return nil }
            return step.name
        }

        /// Folds the current count into `counts` and starts counting under
        /// the adapter and mode as they are now (a zero marks them as scanned with).
        mutating func settle() {
            // A step with no advert after it stays so under the new count.
            lastStep = stepSinceAdvert.map { ($0, 0) }
            if let (reception, count) = current { counts[reception, default: 0] += count }
            current = nil
            guard let adapter, let mode else { return }
            let reception = Reception(adapter: adapter, mode: mode)
            counts[reception, default: 0] += 0
            current = (reception, 0)
        }
    }

    private let state = Mutex(State())
    private let capture: CaptureTap?

    package init(capture: CaptureTap? = nil) { self.capture = capture }

    /// Adverts from now on are counted under `adapter`; nil when scanning stopped.
    package func follow(adapter: AdapterName?) {
        state.withLock { state in
            guard state.adapter != adapter else { return }
            capture?.state(.adapter(adapter?.rawValue))
            state.adapter = adapter
            state.settle()
        }
    }

    /// The scan mode, chosen or changed.
    package func follow(mode: String) {
        state.withLock { state in
            capture?.state(.scanMode(mode))
            state.mode = mode
            state.settle()
        }
    }

    /// An advert heard, from `identity` when it is paired; captured at
    /// `reading` (the one its observation is timed by). `then` hands its
    /// observation on, in the capture's order.
    package func advert(_ sighting: Sighting, from identity: DeviceIdentity?, at reading: ClockReading? = nil, then: () -> Void = {}) {
        state.withLock { state in
            capture?.advert(sighting, adapter: state.adapter, at: reading)
            state.current?.count += 1
            if let identity { state.seen[identity] = .some([state.seen[identity] ?? nil, sighting.rssi].compactMap { $0 }.max()) }
            then()
        }
    }

    /// Captures `body` (at `reading`, or now) and runs `then`, which hands
    /// on what it brought, under the lock: the recorder takes its inputs
    /// in the order the capture holds them, and replay in that order too.
    package func inCaptureOrder(_ body: CaptureRecord.Body, at reading: ClockReading? = nil, then: () -> Void) {
        state.withLock { _ in
            capture?.append(body, at: reading)
            then()
        }
    }

    /// The watchdog's last recovery step, if no advert came after it.
    package var stepSinceAdvert: String? { state.withLock { $0.stepSinceAdvert } }

    /// The adapter scanning now (`hci0`), if any.
    package var adapter: AdapterName? { state.withLock { $0.adapter } }

    package func restarted() {
        state.withLock { state in
            capture?.state(.discoveryRestarted)
            state.restarts += 1
        }
    }

    package func shed() {
        state.withLock { state in
            capture?.state(.strangersShed)
            state.shed += 1
        }
    }

    package func stepped(_ step: String) {
        state.withLock { state in
            capture?.state(.recoveryStep(step))
            state.steps.append(step)
            state.lastStep = (step, state.current?.count ?? 0)
        }
    }

    /// The report for the `seconds` since the last one; with `reset`, it
    /// starts the next, is captured at `reading` and handed to `then` in the
    /// capture's order (without, it is the interval so far).
    package func report(seconds: Double, pairings: [Pairing], reset: Bool = true, at reading: ClockReading? = nil,
                        then: (RadioHealth) -> Void = { _ in }) -> RadioHealth {
        // A replayed capture says how long the interval was: a day at most, never NaN.
        let seconds = seconds.isFinite ? min(max(seconds, 0), 86_400) : 0
        return state.withLock { state in
            var taken = state
            taken.settle()
            let report = Self.report(taken, seconds: seconds, pairings: pairings)
            guard reset else { return report }
            capture?.append(.state(.health(seconds: seconds)), at: reading)
            // A step with no advert after it stays so in the next interval.
            var next = State(adapter: state.adapter, mode: state.mode, lastStep: state.stepSinceAdvert.map { ($0, 0) })
            next.settle()
            state = next
            then(report)
            return report
        }
    }

    private static func report(_ taken: State, seconds: Double, pairings: [Pairing]) -> RadioHealth {
        let minutes = max(seconds, 1) / 60
        return RadioHealth(
            intervalSeconds: Int(seconds.rounded()),
            scanning: taken.counts.sorted { ($0.key.adapter, $0.key.mode) < ($1.key.adapter, $1.key.mode) }.map { reception, count in
                RadioHealth.Reception(adapter: reception.adapter.rawValue, mode: reception.mode, adverts: count,
                                      advertsPerMinute: (Double(count) / minutes * 10).rounded() / 10)
            },
            discoveryRestarts: taken.restarts, ladderSteps: taken.steps, strangersShed: taken.shed,
            paired: pairings.map { pairing in
                let seen = taken.seen[pairing.identity]
                return RadioHealth.Paired(identity: pairing.identity.description, role: pairing.role.rawValue, seen: seen != nil, strongestRSSI: seen ?? nil)
            })
    }
}
