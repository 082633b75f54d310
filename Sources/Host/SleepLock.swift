/// The logind sleep lock's decisions, without the bus: requests to take or
/// release it and the outcomes of asking logind come in, what to do comes
/// out. One request to logind at a time; a release that comes while one is
/// out closes its lock when it arrives; after `stop`, a lock that arrives
/// late is closed at once. A descriptor is never held twice, nor dropped
/// without being closed.
package struct SleepLock: Equatable, Sendable {
    package enum State: Equatable, Sendable {
        case released
        /// Asked logind; `thenRelease` when a release came while it was out.
        case taking(thenRelease: Bool)
        case held(descriptor: Int32)
        case stopped
    }

    package enum Input: Equatable, Sendable {
        case take, release, stop
        /// logind's answer: the lock's descriptor.
        case granted(descriptor: Int32)
        /// No lock: no logind, a refusal or a timeout.
        case refused
    }

    package enum Action: Equatable, Sendable {
        /// Call logind's `Inhibit`, and feed back `granted` or `refused`.
        case askLogind
        case close(descriptor: Int32)
    }

    package private(set) var state: State = .released

    package init() {}

    package var holdsLock: Bool {
        if case .held = state { true } else { false }
    }

    package mutating func handle(_ input: Input) -> [Action] {
        switch (state, input) {
        case (.released, .take):
            state = .taking(thenRelease: false)
            return [.askLogind]
        case (.taking, .take):
            state = .taking(thenRelease: false)
            return []
        case (.taking, .release):
            state = .taking(thenRelease: true)
            return []
        case (.taking(let thenRelease), .granted(let descriptor)):
            state = thenRelease ? .released : .held(descriptor: descriptor)
            return thenRelease ? [.close(descriptor: descriptor)] : []
        case (.taking, .refused):
            state = .released
            return []
        case (.held(let descriptor), .release):
            state = .released
            return [.close(descriptor: descriptor)]
        case (.held(let descriptor), .stop):
            state = .stopped
            return [.close(descriptor: descriptor)]
        case (_, .stop):
            state = .stopped
            return []
        case (_, .granted(let descriptor)):
            // Not asked for (stopped, or another answer already came): never kept.
            return [.close(descriptor: descriptor)]
        case (.released, .release), (.held, .take), (.stopped, _), (_, .refused):
            return []
        }
    }
}
