public import Vocabulary

/// What a reconcile weighs: the persisted intent, the session, and the
/// requirements missing now.
public struct RecordingConditions: Sendable, Equatable {
    public var intent: RecordingIntent
    public var authorized: Bool
    public var missing: [Requirement]

    public init(intent: RecordingIntent, authorized: Bool, missing: [Requirement]) {
        (self.intent, self.authorized, self.missing) = (intent, authorized, missing)
    }
}
