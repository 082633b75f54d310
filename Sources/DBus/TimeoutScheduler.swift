internal import CDBus
internal import Dispatch
import Synchronization

/// All of a connection's libdbus timeouts behind one Dispatch timer, armed
/// for the earliest deadline.
///
/// Every pending call has a timeout, so creating a timer source per call
/// would cost a Dispatch round trip on each. Here adding a later deadline
/// touches only a dictionary. Timeouts are added from sending threads and
/// removed and fired on the connection's queue.
///
/// `@unchecked Sendable`: the timer source is thread-safe to schedule and
/// cancel, and everything else is under `state`'s lock.
final class TimeoutScheduler: @unchecked Sendable {
    private struct Entry {
        /// The libdbus `DBusTimeout`, as an address.
        var timeout: UInt
        var interval: UInt64
        var deadline: UInt64
    }

    private struct State {
        var entries: [UInt: Entry] = [:]
        var armedFor = UInt64.max
    }

    private let state = Mutex(State())
    private let timer: any DispatchSourceTimer

    init(queue: DispatchQueue) {
        timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .distantFuture)
        timer.resume()
    }

    /// Sets the handler run on the queue after due timeouts were handled.
    func onFire(_ afterwards: @escaping @Sendable () -> Void) {
        timer.setEventHandler { [self] in
            for timeout in due() { dbus_timeout_handle(timeout) }
            afterwards()
        }
    }

    /// Adds `timeout`, or re-reads it after libdbus toggled it.
    func update(_ timeout: OpaquePointer) {
        let key = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(timeout)))
        let enabled = dbus_timeout_get_enabled(timeout) != 0
        let interval = UInt64(max(dbus_timeout_get_interval(timeout), 0)) * 1_000_000
        state.withLock { state in
            guard enabled else {
                state.entries[key] = nil
                return
            }
            let deadline = DispatchTime.now().uptimeNanoseconds &+ interval
            state.entries[key] = Entry(timeout: key, interval: interval, deadline: deadline)
            if deadline < state.armedFor { arm(&state, at: deadline) }
        }
    }

    func remove(_ timeout: OpaquePointer) {
        let key = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(timeout)))
        state.withLock { _ = $0.entries.removeValue(forKey: key) }
    }

    func cancel() {
        state.withLock { $0.entries.removeAll() }
        timer.cancel()
    }

    /// Timeouts whose deadline has passed; each is re-armed for its next
    /// interval, as libdbus timeouts repeat until removed.
    private func due() -> [OpaquePointer] {
        state.withLock { state in
            let now = DispatchTime.now().uptimeNanoseconds
            var fired: [OpaquePointer] = []
            var next = UInt64.max
            for (key, var entry) in state.entries {
                if entry.deadline <= now {
                    fired.append(OpaquePointer(bitPattern: entry.timeout)!)
                    entry.deadline = now &+ entry.interval
                    state.entries[key] = entry
                }
                next = min(next, entry.deadline)
            }
            arm(&state, at: next)
            return fired
        }
    }

    private func arm(_ state: inout State, at deadline: UInt64) {
        state.armedFor = deadline
        timer.schedule(deadline: deadline == .max ? .distantFuture : DispatchTime(uptimeNanoseconds: deadline))
    }
}
