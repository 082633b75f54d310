import Basics
package import Recording
import Vocabulary

extension Reconciler.Event {
    /// The event's kind and detail as stored, signalled and uploaded; `wall`
    /// dates a boot-clock time.
    package func announcement(wall: (Double) -> Double) -> (kind: String, detail: [String: String]) {
        switch self {
        case .requirementsMissing(let missing):
            ("requirementsMissing", ["missing": missing.map(\.rawValue).joined(separator: " ")])
        case .requirementsLostWhileRunning(let lostAt, let missing):
            ("requirementsLostWhileRunning", ["lost_at": CivilTime.iso8601(wall(lostAt)), "missing": missing.map(\.rawValue).joined(separator: " ")])
        case .telemetryGapDetected(let from, let to):
            ("telemetryGapDetected", ["from": CivilTime.iso8601(wall(from)), "to": CivilTime.iso8601(wall(to)), "seconds": String(Int((to - from).rounded()))])
        }
    }

    /// The kinds the recording core reports itself: replay makes them again
    /// rather than copying a capture's.
    package static let kinds: Set<String> = ["requirementsMissing", "requirementsLostWhileRunning", "telemetryGapDetected"]
}
