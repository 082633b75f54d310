/// What the uploader says about reaching the backend: one line when the
/// link goes down or its reason changes, and one when it answers again;
/// none per attempt, since a car parked offline for a week would write
/// thousands of the same line to its SD card.
package struct BackendLink: Equatable, Sendable {
    package enum State: Equatable, Sendable {
        case up
        /// `failures` attempts in a row failed; the last for `reason`.
        case down(reason: String, failures: Int)
    }

    /// A line worth logging.
    package enum Line: Equatable, Sendable {
        /// The link went down, or is down for another reason now.
        case down(reason: String)
        /// The backend answered after `failures` failed attempts.
        case back(failures: Int)
    }

    package private(set) var state: State = .up

    package init() {}

    /// An attempt that got no acknowledgement (no answer, a 5xx, a captive portal's page).
    package mutating func failed(_ reason: String) -> Line? {
        switch state {
        case .up:
            state = .down(reason: reason, failures: 1)
            return .down(reason: reason)
        case .down(let last, let failures):
            state = .down(reason: reason, failures: failures + 1)
            return reason == last ? nil : .down(reason: reason)
        }
    }

    /// The backend answered as the contract says (an acknowledgement, a duplicate, a refusal for good).
    package mutating func answered() -> Line? {
        guard case .down(_, let failures) = state else { return nil }
        state = .up
        return .back(failures: failures)
    }
}
