internal import Glibc

/// What the running daemon knows, shared with its control interface.
actor DaemonState {
    nonisolated let deviceID: String
    /// Seconds since 1970 at start.
    nonisolated let startedAt: UInt64
    private(set) var missing: [Requirement] = []
    private let reloads: AsyncStream<Void>.Continuation
    private let flushes: AsyncStream<Void>.Continuation

    init(deviceID: String, reloads: AsyncStream<Void>.Continuation, flushes: AsyncStream<Void>.Continuation) {
        self.deviceID = deviceID
        self.startedAt = UInt64(time(nil))
        self.reloads = reloads
        self.flushes = flushes
    }

    /// Stores a new requirement set and returns the one it replaced.
    func update(missing new: [Requirement]) -> [Requirement] {
        defer { missing = new.sorted() }
        return missing
    }

    func requestReload() { reloads.yield() }

    func requestFlush() { flushes.yield() }
}
