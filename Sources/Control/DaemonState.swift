package import Daemon
internal import Glibc
package import Host
package import Location
import Logging
package import Upload
package import Vocabulary

/// What the running daemon knows, shared with its control interface.
package actor DaemonState {
    package nonisolated let deviceID: String
    /// Seconds since 1970 at start.
    package nonisolated let startedAt: UInt64
    /// The recorder and the queue, for the control interface's properties.
    package nonisolated let recorder: RecorderService
    package nonisolated let outbox: Outbox
    package private(set) var missing: [Requirement] = []
    /// The location reader's latest state; nil until it has reported.
    package private(set) var location: LocationState?
    /// Every service started, and systemd was told so.
    package private(set) var ready = false
    private let wake: AsyncStream<DaemonWake>.Continuation

    package init(deviceID: String, recorder: RecorderService, outbox: Outbox, wake: AsyncStream<DaemonWake>.Continuation) {
        self.deviceID = deviceID
        self.startedAt = UInt64(time(nil))
        self.recorder = recorder
        self.outbox = outbox
        self.wake = wake
    }

    package func update(location state: LocationState) { location = state }

    package func markReady() { ready = true }

    /// For `waymark health`: a real write to the store, its quick check,
    /// and what the recorder, the scanner and the queue say.
    package func healthFacts() async -> HealthFacts {
        var facts = await recorder.healthFacts()
        facts.ready = ready
        facts.missing = missing
        if let oldest = BestEffort.read("the queue", or: nil, { try outbox.status() })?.oldest {
            facts.oldestQueuedSeconds = max(Double(time(nil)) - oldest, 0)
        }
        return facts
    }

    /// Stores a new requirement set and returns the one it replaced.
    package func update(missing new: [Requirement]) -> [Requirement] {
        defer { missing = new.sorted() }
        return missing
    }

    package nonisolated func requestReload() { wake.yield(.reload) }

    package nonisolated func requestFlush() { wake.yield(.flush) }

    package nonisolated func request(_ intent: RecordingIntent) { wake.yield(.intent(intent)) }
}
