package import Capture
package import Recording
package import Vocabulary

/// A reconcile's conditions as a capture keeps them, so that replay
/// reconciles as the daemon did.
extension RecordingConditions {
    package var captured: CaptureState {
        .requirements(missing: missing, intent: intent, authorized: authorized)
    }

    /// From a `requirements` record; a capture older than the intent and the
    /// session was made by an armed, authorized gateway, as one that records is.
    package init(missing: [Requirement], capturedIntent intent: RecordingIntent?, authorized: Bool?) {
        self.init(intent: intent ?? .armed, authorized: authorized ?? true, missing: missing)
    }
}
