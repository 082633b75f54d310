/// What the user asked for with `waymark start` and `stop` (and login,
/// logout): kept in the store, and changed by nothing else.
public enum RecordingIntent: String, Sendable, Equatable, Codable {
    case armed, disarmed
}
