extension Clock {
    /// Sleeps for `duration`; false if the task was cancelled first.
    public func pause(for duration: Duration) async -> Bool {
        do {
            try await sleep(until: now.advanced(by: duration), tolerance: nil)
            return true
        } catch {
            return false
        }
    }
}
