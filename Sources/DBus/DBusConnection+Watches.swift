internal import CDBus
internal import Dispatch

/// The Dispatch sources behind one libdbus watch (a socket) or timeout.
///
/// Sources are created, toggled and cancelled only on the connection's queue,
/// and their handlers run there too.
final class WatchSources {
    let connection: DBusConnection
    var read: (any DispatchSourceRead)?
    var write: (any DispatchSourceWrite)?
    var timer: (any DispatchSourceTimer)?
    var readSuspended = false
    var writeSuspended = false

    init(connection: DBusConnection) { self.connection = connection }

    func cancel() {
        if readSuspended { read?.resume() }
        if writeSuspended { write?.resume() }
        read?.cancel()
        write?.cancel()
        timer?.cancel()
        read = nil
        write = nil
        timer = nil
    }

    func setEnabled(_ enabled: Bool) {
        if let read, enabled == readSuspended {
            enabled ? read.resume() : read.suspend()
            readSuspended = !enabled
        }
        if let write, enabled == writeSuspended {
            enabled ? write.resume() : write.suspend()
            writeSuspended = !enabled
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
        let sources = WatchSources(connection: connection)
        let fd = dbus_watch_get_unix_fd(watch)
        let flags = dbus_watch_get_flags(watch)
        if flags & CDBUS_WATCH_READABLE != 0 {
            let source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: connection.queue)
            source.setEventHandler {
                dbus_watch_handle(watch, CDBUS_WATCH_READABLE)
                connection.drain()
            }
            sources.read = source
        }
        if flags & CDBUS_WATCH_WRITABLE != 0 {
            let source = DispatchSource.makeWriteSource(fileDescriptor: fd, queue: connection.queue)
            source.setEventHandler {
                dbus_watch_handle(watch, CDBUS_WATCH_WRITABLE)
                connection.drain()
            }
            sources.write = source
        }
        // Sources start suspended; `setEnabled` resumes them when libdbus wants them.
        sources.readSuspended = sources.read != nil
        sources.writeSuspended = sources.write != nil
        sources.setEnabled(dbus_watch_get_enabled(watch) != 0)
        dbus_watch_set_data(watch, Unmanaged.passRetained(sources).toOpaque(), DBusConnection.releaseWatchSources)
        return 1
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
        let connection = DBusConnection.connection(context)
        let sources = WatchSources(connection: connection)
        let timer = DispatchSource.makeTimerSource(queue: connection.queue)
        timer.setEventHandler {
            dbus_timeout_handle(timeout)
            connection.drain()
        }
        sources.timer = timer
        schedule(timer, timeout)
        timer.resume()
        dbus_timeout_set_data(timeout, Unmanaged.passRetained(sources).toOpaque(), DBusConnection.releaseWatchSources)
        return 1
    }

    static let removeTimeout: DBusRemoveTimeoutFunction = { timeout, _ in
        guard let timeout else { return }
        WatchSources.of(dbus_timeout_get_data(timeout))?.cancel()
    }

    static let toggleTimeout: DBusTimeoutToggledFunction = { timeout, _ in
        guard let timeout, let timer = WatchSources.of(dbus_timeout_get_data(timeout))?.timer else { return }
        schedule(timer, timeout)
    }

    /// A disabled timeout is parked at the far future rather than suspended,
    /// so the source never needs a balancing resume.
    private static func schedule(_ timer: any DispatchSourceTimer, _ timeout: OpaquePointer) {
        if dbus_timeout_get_enabled(timeout) != 0 {
            let interval = DispatchTimeInterval.milliseconds(Int(dbus_timeout_get_interval(timeout)))
            timer.schedule(deadline: .now() + interval, repeating: interval)
        } else {
            timer.schedule(deadline: .distantFuture)
        }
    }
}
