internal import Glibc
import Location
import Recording
import Upload
import Vocabulary

/// What the running daemon knows, shared with its control interface.
actor DaemonState {
    nonisolated let deviceID: String
    /// Seconds since 1970 at start.
    nonisolated let startedAt: UInt64
    /// The recorder and the queue, for the control interface's properties.
    nonisolated let recorder: RecorderService
    nonisolated let outbox: Outbox
    private(set) var missing: [Requirement] = []
    /// The location reader's latest state; nil until it has reported.
    private(set) var location: LocationState?
    /// Every service started, and systemd was told so.
    private(set) var ready = false
    private let wake: AsyncStream<DaemonWake>.Continuation

    init(deviceID: String, recorder: RecorderService, outbox: Outbox, wake: AsyncStream<DaemonWake>.Continuation) {
        self.deviceID = deviceID
        self.startedAt = UInt64(time(nil))
        self.recorder = recorder
        self.outbox = outbox
        self.wake = wake
    }

    func update(location state: LocationState) { location = state }

    func markReady() { ready = true }

    /// For `waymark health`: a real write to the store, its quick check,
    /// and what the recorder, the scanner and the queue say.
    func healthFacts() async -> HealthFacts {
        var facts = await recorder.healthFacts()
        facts.ready = ready
        facts.missing = missing.map(\.rawValue)
        if let oldest = BestEffort.read("the queue", or: nil, { try outbox.status() })?.oldest {
            facts.oldestQueuedSeconds = max(Double(time(nil)) - oldest, 0)
        }
        return facts
    }

    /// Stores a new requirement set and returns the one it replaced.
    func update(missing new: [Requirement]) -> [Requirement] {
        defer { missing = new.sorted() }
        return missing
    }

    nonisolated func requestReload() { wake.yield(.reload) }

    nonisolated func requestFlush() { wake.yield(.flush) }

    nonisolated func request(_ intent: RecordingIntent) { wake.yield(.intent(intent)) }
}
