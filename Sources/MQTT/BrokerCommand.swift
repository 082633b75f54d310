/// A command from the broker, on `{prefix}/cmd/NAME` (with `[MQTT]
/// Commands` on). Any other name is refused and logged, never guessed at.
public enum BrokerCommand: String, Sendable, Equatable, CaseIterable {
    /// Arm recording, as `waymark start`.
    case start
    /// Disarm recording, as `waymark stop`.
    case stop
    /// Upload what is queued now, as `waymark queue flush`.
    case flush
}
