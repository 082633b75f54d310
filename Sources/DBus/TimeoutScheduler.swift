internal import CDBus
internal import Dispatch
import Synchronization

/// A connection's libdbus timeouts, as the limit of its event loop's `poll()`.
///
/// Every pending call has a timeout, so adding one touches only a short
/// array: a handful are pending at once, and a linear search beats hashing.
/// libdbus adds, toggles and removes them from the loop's thread, which also
/// fires them; the lock keeps that safe if a libdbus call ever comes from
/// another thread.
///
/// `@unchecked Sendable`: everything is under `state`'s lock.
final class TimeoutScheduler: @unchecked Sendable {
    private struct Entry {
        /// The libdbus `DBusTimeout`, as an address.
        var timeout: UInt
        var interval: UInt64
        var deadline: UInt64
    }

    private let state = Mutex([Entry]())

    /// Adds `timeout`, or re-reads it after libdbus toggled it.
    func update(_ timeout: OpaquePointer) {
        let key = Self.key(timeout)
        let enabled = dbus_timeout_get_enabled(timeout) != 0
        let interval = UInt64(max(dbus_timeout_get_interval(timeout), 0)) * 1_000_000
        state.withLock { entries in
            guard enabled else { return Self.remove(key, from: &entries) }
            let entry = Entry(timeout: key, interval: interval, deadline: Self.now &+ interval)
            if let index = entries.firstIndex(where: { $0.timeout == key }) {
                entries[index] = entry
            } else {
                entries.append(entry)
            }
        }
    }

    func remove(_ timeout: OpaquePointer) {
        let key = Self.key(timeout)
        state.withLock { Self.remove(key, from: &$0) }
    }

    /// Milliseconds until the earliest deadline, rounded up; -1 for none.
    func pollTimeout() -> Int32 {
        state.withLock { entries in
            guard !entries.isEmpty else { return -1 }
            var next = UInt64.max
            for entry in entries where entry.deadline < next { next = entry.deadline }
            let now = Self.now
            return next <= now ? 0 : Int32(clamping: (next - now + 999_999) / 1_000_000)
        }
    }

    /// Handles every timeout whose deadline has passed; each is re-armed for
    /// its next interval, as libdbus timeouts repeat until removed.
    func fireDue() {
        let fired: [OpaquePointer] = state.withLock { entries in
            guard !entries.isEmpty else { return [] }
            let now = Self.now
            var fired: [OpaquePointer] = []
            for index in entries.indices where entries[index].deadline <= now {
                fired.append(OpaquePointer(bitPattern: entries[index].timeout)!)
                entries[index].deadline = now &+ entries[index].interval
            }
            return fired
        }
        // Outside the lock: handling a timeout may add or remove timeouts.
        for timeout in fired { dbus_timeout_handle(timeout) }
    }

    private static var now: UInt64 { DispatchTime.now().uptimeNanoseconds }

    private static func key(_ timeout: OpaquePointer) -> UInt {
        UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(timeout)))
    }

    /// Order does not matter: the last entry takes the removed one's place.
    private static func remove(_ key: UInt, from entries: inout [Entry]) {
        guard let index = entries.firstIndex(where: { $0.timeout == key }) else { return }
        entries.swapAt(index, entries.count - 1)
        entries.removeLast()
    }
}
