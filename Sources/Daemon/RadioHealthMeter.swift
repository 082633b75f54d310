import Gateway
import Synchronization
import Telemetry

/// Counts what the radio does between two health reports: adverts per
/// adapter and scan mode, restarts, recovery steps, and the strongest
/// signal of each paired device. Updated from the scanner's queue for
/// every advert, so it is a lock and a few additions, no more.
final class RadioHealthMeter: Sendable {
    private struct State {
        /// `hci0`, while scanning with it.
        var adapter: String?
        /// The scan mode, as last reported (it may come before the adapter is known).
        var mode: String?
        /// What adverts are counted under now; nil while not scanning.
        var current: (adapter: String, mode: String)? {
            guard let adapter, let mode else { return nil }
            return (adapter, mode)
        }
        var adverts: [String: (adapter: String, mode: String, count: Int)] = [:]
        var restarts = 0
        var steps: [String] = []
        /// Identity → strongest RSSI (nil when seen without one).
        var seen: [String: Int?] = [:]

        /// Adds `adverts` under the current adapter and mode (0 marks them as scanned with).
        mutating func count(_ adverts: Int) {
            guard let current else { return }
            self.adverts[current.adapter + " " + current.mode, default: (current.adapter, current.mode, 0)].count += adverts
        }
    }

    private let state = Mutex(State())

    /// Adverts from now on are counted under `adapter` (an object path or
    /// `hci0`); nil when scanning stopped.
    func follow(adapter: String?) {
        state.withLock { state in
            state.adapter = adapter.map { String($0.split(separator: "/").last ?? Substring($0)) }
            state.count(0)
        }
    }

    /// The scan mode, chosen or changed.
    func follow(mode: String) {
        state.withLock { state in
            state.mode = mode
            state.count(0)
        }
    }

    func advert() { state.withLock { $0.count(1) } }

    func seen(_ identity: String, rssi: Int?) {
        state.withLock { state in state.seen[identity] = .some([state.seen[identity] ?? nil, rssi].compactMap { $0 }.max()) }
    }

    func restarted() { state.withLock { $0.restarts += 1 } }

    func stepped(_ step: String) { state.withLock { $0.steps.append(step) } }

    /// The report for the `seconds` since the last one; with `reset`, it
    /// starts the next (without, it is the interval so far).
    func report(seconds: Double, pairings: [Pairing], reset: Bool = true) -> RadioHealth {
        let taken = state.withLock { state in
            let taken = state
            guard reset else { return taken }
            state = State(adapter: state.adapter, mode: state.mode)
            state.count(0)
            return taken
        }
        let minutes = max(seconds, 1) / 60
        return RadioHealth(
            intervalSeconds: Int(seconds.rounded()),
            scanning: taken.adverts.values.sorted { ($0.adapter, $0.mode) < ($1.adapter, $1.mode) }.map { entry in
                RadioHealth.Reception(adapter: entry.adapter, mode: entry.mode, adverts: entry.count,
                                      advertsPerMinute: (Double(entry.count) / minutes * 10).rounded() / 10)
            },
            discoveryRestarts: taken.restarts, ladderSteps: taken.steps,
            paired: pairings.map { pairing in
                let seen = taken.seen[pairing.identity]
                return RadioHealth.Paired(identity: pairing.identity, role: pairing.role.rawValue, seen: seen != nil, strongestRSSI: seen ?? nil)
            })
    }
}
