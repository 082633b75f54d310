public import Telemetry
/// What a location reader reports: a fix per epoch, and state changes.
public enum LocationEvent: Sendable, Equatable {
    case fix(Fix)
    case state(LocationState)
}
