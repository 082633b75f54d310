/// How soon newly committed samples should be uploaded.
public enum UploadUrgency: Sendable, Equatable {
    /// With the next full batch, or once a partial one has waited `BatchAge`.
    case batched
    /// Now, on the wake-up that committed them (a health report outside a
    /// trip, when nothing else is on its way), unless a retry is backing off.
    case routine
    /// Now, past any backoff: a trip has ended.
    case flush
}
