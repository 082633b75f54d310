import Basics
package import Recording
package import Vocabulary

extension Reconciler.Event {
    /// The event as stored, signalled and uploaded; `wall` dates a boot-clock time.
    package func announcement(wall: (Double) -> Double) -> Event {
        switch self {
        case .requirementsMissing(let missing):
            Event(.requirementsMissing, [.missing: missing.map(\.rawValue).joined(separator: " ")])
        case .requirementsLostWhileRunning(let lostAt, let missing):
            Event(.requirementsLostWhileRunning, [.lostAt: CivilTime.iso8601(wall(lostAt)), .missing: missing.map(\.rawValue).joined(separator: " ")])
        case .telemetryGapDetected(let from, let to):
            Event(.telemetryGapDetected, [.from: CivilTime.iso8601(wall(from)), .to: CivilTime.iso8601(wall(to)), .seconds: String(Int((to - from).rounded()))])
        }
    }
}
