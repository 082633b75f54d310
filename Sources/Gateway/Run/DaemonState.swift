internal import Glibc

/// What the running daemon knows, shared with its control interface.
actor DaemonState {
    nonisolated let deviceID: String
    /// Seconds since 1970 at start.
    nonisolated let startedAt: UInt64
    private(set) var missing: [Requirement] = []
    private let reloads: AsyncStream<Void>.Continuation

    init(deviceID: String, reloads: AsyncStream<Void>.Continuation) {
        self.deviceID = deviceID
        self.startedAt = UInt64(time(nil))
        self.reloads = reloads
    }

    /// Stores a new requirement set; returns whether it changed.
    func update(missing new: [Requirement]) -> Bool {
        let sorted = new.sorted()
        guard sorted != missing else { return false }
        missing = sorted
        return true
    }

    func requestReload() { reloads.yield() }
}
