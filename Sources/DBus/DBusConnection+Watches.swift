internal import CDBus
internal import Dispatch
internal import Glibc
import Synchronization

/// The Dispatch sources behind one libdbus watch (a socket direction).
///
/// libdbus toggles watches from whichever thread is sending, so the
/// suspended flags live under a lock; the sources' handlers run on the
/// connection's queue. `@unchecked Sendable`: Dispatch sources are
/// thread-safe objects, and the flags are only touched under the lock.
final class WatchSources: @unchecked Sendable {
    private struct State {
        var read: (any DispatchSourceRead)?
        var write: (any DispatchSourceWrite)?
        var readSuspended = false
        var writeSuspended = false
    }

    private let state: Mutex<State>

    init(read: (any DispatchSourceRead)?, write: (any DispatchSourceWrite)?, enabled: Bool) {
        nonisolated(unsafe) let initial = State(read: read, write: write, readSuspended: read != nil, writeSuspended: write != nil)
        state = Mutex(initial)
        setEnabled(enabled)
    }

    func cancel() {
        state.withLock { state in
            if state.readSuspended { state.read?.resume() }
            if state.writeSuspended { state.write?.resume() }
            state.read?.cancel()
            state.write?.cancel()
            state = State()
        }
    }

    func setEnabled(_ enabled: Bool) {
        state.withLock { state in
            if let read = state.read, enabled == state.readSuspended {
                enabled ? read.resume() : read.suspend()
                state.readSuspended = !enabled
            }
            if let write = state.write, enabled == state.writeSuspended {
                enabled ? write.resume() : write.suspend()
                state.writeSuspended = !enabled
            }
        }
    }

    static func of(_ data: UnsafeMutableRawPointer?) -> WatchSources? {
        data.map { Unmanaged<WatchSources>.fromOpaque($0).takeUnretainedValue() }
    }
}

extension DBusConnection {
    static let releaseWatchSources: DBusFreeFunction = { data in
        guard let data else { return }
        let sources = Unmanaged<WatchSources>.fromOpaque(data)
        sources.takeUnretainedValue().cancel()
        sources.release()
    }

    static let addWatch: DBusAddWatchFunction = { watch, context in
        guard let watch else { return 0 }
        let connection = DBusConnection.connection(context)
        let fd = dbus_watch_get_unix_fd(watch)
        let flags = dbus_watch_get_flags(watch)
        var read: (any DispatchSourceRead)?
        var write: (any DispatchSourceWrite)?
        if flags & CDBUS_WATCH_READABLE != 0 {
            guard let copy = duplicate(fd) else { return 0 }
            read = DispatchSource.makeReadSource(fileDescriptor: copy, queue: connection.queue)
            configure(read!, handling: watch, for: CDBUS_WATCH_READABLE, on: connection, closing: copy)
        }
        if flags & CDBUS_WATCH_WRITABLE != 0 {
            guard let copy = duplicate(fd) else { return 0 }
            write = DispatchSource.makeWriteSource(fileDescriptor: copy, queue: connection.queue)
            configure(write!, handling: watch, for: CDBUS_WATCH_WRITABLE, on: connection, closing: copy)
        }
        // Sources start suspended; `setEnabled` resumes them when libdbus wants them.
        let sources = WatchSources(read: read, write: write, enabled: dbus_watch_get_enabled(watch) != 0)
        dbus_watch_set_data(watch, Unmanaged.passRetained(sources).toOpaque(), DBusConnection.releaseWatchSources)
        return 1
    }

    /// Each source watches its own duplicate of libdbus's socket, closed only
    /// in the source's cancel handler. libdbus closes its descriptor as soon
    /// as the connection closes, while Dispatch unregisters a cancelled source
    /// later; watching libdbus's own number would let a new connection that
    /// reuses it join the stale registration and never hear from its socket.
    private static func configure(
        _ source: any DispatchSourceProtocol, handling watch: OpaquePointer, for condition: UInt32,
        on connection: DBusConnection, closing copy: Int32
    ) {
        // The handler runs only while the source exists, so an unretained
        // reference to it is safe (a retained one would be a cycle).
        let unretained = Unmanaged.passUnretained(source as AnyObject)
        source.setEventHandler {
            // libdbus reads at most 2048 bytes per call; Dispatch knows how
            // many are waiting. Reading them all in one wake-up saves the
            // re-arm, the eventfd and the FIONREAD of a wake-up per 2 KiB.
            // 256 KiB is more than a Unix socket holds by default.
            let waiting = condition == CDBUS_WATCH_READABLE ? Int((unretained.takeUnretainedValue() as? any DispatchSourceRead)?.data ?? 0) : 0
            for _ in 0..<max(1, min(128, (waiting + 2047) / 2048)) {
                dbus_watch_handle(watch, condition)
            }
            connection.drain()
        }
        source.setCancelHandler { Glibc.close(copy) }
    }

    private static func duplicate(_ fd: Int32) -> Int32? {
        let copy = fcntl(fd, F_DUPFD_CLOEXEC, 0)
        return copy >= 0 ? copy : nil
    }

    static let removeWatch: DBusRemoveWatchFunction = { watch, _ in
        guard let watch else { return }
        WatchSources.of(dbus_watch_get_data(watch))?.cancel()
    }

    static let toggleWatch: DBusWatchToggledFunction = { watch, _ in
        guard let watch else { return }
        WatchSources.of(dbus_watch_get_data(watch))?.setEnabled(dbus_watch_get_enabled(watch) != 0)
    }

    static let addTimeout: DBusAddTimeoutFunction = { timeout, context in
        guard let timeout else { return 0 }
        DBusConnection.connection(context).timeouts.update(timeout)
        return 1
    }

    static let removeTimeout: DBusRemoveTimeoutFunction = { timeout, context in
        guard let timeout else { return }
        DBusConnection.connection(context).timeouts.remove(timeout)
    }

    static let toggleTimeout: DBusTimeoutToggledFunction = { timeout, context in
        guard let timeout else { return }
        DBusConnection.connection(context).timeouts.update(timeout)
    }
}
