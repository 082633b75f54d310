import Foundation
import Peers

/// The processes the demo started, in order, so that any exit stops them all
/// (each with its process group: gpsfake's gpsd goes with gpsfake).
final class Cast: @unchecked Sendable {
    private let lock = NSLock()
    private var members: [(role: String, process: ChildProcess)] = []

    func add(_ role: String, _ process: ChildProcess) {
        lock.withLock { members.append((role, process)) }
        Console.show("  started \(role), pid \(process.pid)")
    }

    /// Stops every process, newest first, and returns those still alive.
    func stopAll() -> [String] {
        let members = lock.withLock {
            defer { self.members = [] }
            return self.members
        }
        // Ten seconds each before SIGKILL: a daemon exits in milliseconds,
        // but under a profiler (`make order-file`) it takes seconds.
        for member in members.reversed() { member.process.stop(grace: 10) }
        return members.compactMap { member in
            // kill(-pgid, 0) finds any process of the group still alive.
            kill(-member.process.pid, 0) == 0 ? "\(member.role) (process group \(member.process.pid))" : nil
        }
    }
}
