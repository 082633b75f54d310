internal import Glibc
import Location
import Upload
import Recording

/// What the running daemon knows, shared with its control interface.
actor DaemonState {
    nonisolated let deviceID: String
    /// Seconds since 1970 at start.
    nonisolated let startedAt: UInt64
    private(set) var missing: [Requirement] = []
    /// The location reader's latest state; nil until it has reported.
    private(set) var location: LocationState?

    func update(location state: LocationState) { location = state }

    /// The recorder and the queue, for the control interface's properties.
    private(set) var recorder: RecorderService?
    private(set) var outbox: Outbox?

    func attach(recorder: RecorderService, outbox: Outbox) {
        self.recorder = recorder
        self.outbox = outbox
    }
    private let reloads: AsyncStream<Void>.Continuation
    private let flushes: AsyncStream<Void>.Continuation
    private let intents: AsyncStream<Reconciler.Intent>.Continuation

    init(deviceID: String, reloads: AsyncStream<Void>.Continuation, flushes: AsyncStream<Void>.Continuation,
         intents: AsyncStream<Reconciler.Intent>.Continuation) {
        self.deviceID = deviceID
        self.startedAt = UInt64(time(nil))
        self.reloads = reloads
        self.flushes = flushes
        self.intents = intents
    }

    /// Stores a new requirement set and returns the one it replaced.
    func update(missing new: [Requirement]) -> [Requirement] {
        defer { missing = new.sorted() }
        return missing
    }

    func requestReload() { reloads.yield() }

    func requestFlush() { flushes.yield() }

    func request(_ intent: Reconciler.Intent) { intents.yield(intent) }
}
