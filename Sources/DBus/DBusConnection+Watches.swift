internal import CDBus

/// libdbus's watch and timeout callbacks. libdbus calls them from the thread
/// that calls into it, which is always the connection's event loop.
extension DBusConnection {
    static let addWatch: DBusAddWatchFunction = { watch, context in
        guard let watch else { return 0 }
        DBusConnection.connection(context).loop.add(watch)
        return 1
    }

    static let removeWatch: DBusRemoveWatchFunction = { watch, context in
        guard let watch else { return }
        DBusConnection.connection(context).loop.remove(watch)
    }

    /// The loop reads each watch's enabled flag before every `poll()`.
    static let toggleWatch: DBusWatchToggledFunction = { _, _ in }

    static let addTimeout: DBusAddTimeoutFunction = { timeout, context in
        guard let timeout else { return 0 }
        DBusConnection.connection(context).loop.timeouts.update(timeout)
        return 1
    }

    static let removeTimeout: DBusRemoveTimeoutFunction = { timeout, context in
        guard let timeout else { return }
        DBusConnection.connection(context).loop.timeouts.remove(timeout)
    }

    static let toggleTimeout: DBusTimeoutToggledFunction = { timeout, context in
        guard let timeout else { return }
        DBusConnection.connection(context).loop.timeouts.update(timeout)
    }
}
