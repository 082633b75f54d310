/// What the gateway announces: kept in the store's event log, sent as the
/// control interface's `Event` signal, and (most of them) uploaded as samples.
public enum EventKind: String, Sendable, Hashable, CaseIterable, Codable {
    case tripStarted, tripResumed, tripEnded
    /// The recording core's own: reported by the reconciler.
    case requirementsMissing, requirementsLostWhileRunning, telemetryGapDetected
    /// The scanner's: the radio and how it is heard.
    case radioNeedsPowerCycle, radioRecovered, adapterFailover, scanModeChanged, scanStartFailed, scanStarted
    /// The session's.
    case notAuthorized, remoteSettingsUpdated, policyUpdated
    /// The daemon's and the queue's.
    case storeRecovered, dataDropped, stopped

    /// Whether the recording core reports it (rather than another part of the gateway).
    public var isReconcilers: Bool {
        self == .requirementsMissing || self == .requirementsLostWhileRunning || self == .telemetryGapDetected
    }
}
