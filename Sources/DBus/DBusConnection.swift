internal import CDBus
internal import Dispatch
internal import Glibc
import Synchronization

/// A private connection to a message bus, driven by its own event loop: one
/// thread asleep in `poll()` until the socket or a libdbus timeout needs it,
/// so an idle connection makes no wake-ups.
///
/// Every libdbus call that can touch the socket (sending, handling watches
/// and timeouts, dispatching) runs on `loop`. The subscription and object
/// tables are also reached from callers' threads, so they are guarded by
/// `lock`, which dispatching holds too. That is what makes `@unchecked
/// Sendable` safe.
public final class DBusConnection: @unchecked Sendable {
    let raw: OpaquePointer
    let loop: DBusEventLoop
    let lock = Mutex<Void>(())
    private let open = Atomic<Bool>(true)
    /// The unique name the bus gave this connection (`:1.42`).
    public let uniqueName: String
    /// Opens another connection to the same bus (see `sibling`).
    private var reopen: (@Sendable (_ label: String) async throws(DBusError) -> DBusConnection)?

    // Guarded by `lock`.
    var subscriptions: [UInt64: Subscription] = [:]
    var objects: [String: DBusObject] = [:]
    var nextSubscriptionID: UInt64 = 0
    /// Signals matched during a dispatch, delivered by `drain` once the lock is released.
    var deliveries: [(deliver: @Sendable (DBusMessage) -> Void, message: DBusMessage)] = []
    /// Balances the `passRetained` handed to libdbus as callback context.
    private var callbackContext: Unmanaged<DBusConnection>?
    /// Calls waiting for their replies; touched only on the loop.
    let inFlight = CallsInFlight()

    var isOpen: Bool { open.load(ordering: .acquiring) }

    /// Bytes the bus had sent this connection that were not yet read when
    /// its socket was last readable. Read from a signal handler, it says how
    /// far behind the handlers are: a burst queues in the socket, then in
    /// the bus, and every message waits for those before it.
    public var unreadBytes: Int { loop.backlog.load(ordering: .relaxed) }

    struct Subscription {
        let rule: MatchRule
        /// Runs on the loop after the dispatch that matched, outside the lock.
        let deliver: @Sendable (DBusMessage) -> Void
        /// Runs when the connection closes.
        let finish: @Sendable () -> Void
    }

    private init(raw: OpaquePointer, label: String) {
        self.raw = raw
        self.loop = DBusEventLoop(name: label)
        self.uniqueName = dbus_bus_get_unique_name(raw).map { String(cString: $0) } ?? ""
    }

    /// Connects to the system bus (`dbus_bus_get_private`). libdbus reads
    /// `DBUS_SYSTEM_BUS_ADDRESS` first, so tests can point this at a private bus.
    public static func system(label: String = "system") async throws(DBusError) -> DBusConnection {
        let address = systemBusAddress
        let connection = try await open(address: address, label: label) { error in
            dbus_bus_get_private(DBUS_BUS_SYSTEM, &error.raw)
        }
        connection.reopen = { label throws(DBusError) in try await system(label: label) }
        return connection
    }

    /// Connects to the bus at `address` and registers with it
    /// (`dbus_connection_open_private`, `dbus_bus_register`).
    public static func connect(address: String, label: String = "bus") async throws(DBusError) -> DBusConnection {
        let connection = try await open(address: address, label: label) { error in
            guard let raw = dbus_connection_open_private(address, &error.raw) else { return nil }
            guard dbus_bus_register(raw, &error.raw) != 0 else {
                dbus_connection_close(raw)
                dbus_connection_unref(raw)
                return nil
            }
            return raw
        }
        connection.reopen = { label throws(DBusError) in try await connect(address: address, label: label) }
        return connection
    }

    /// Another connection to the same bus, with its own loop and queue: for
    /// calls whose replies must not wait behind this connection's signals
    /// (a scanner's discovery control in busy air). `label` names its thread.
    public func sibling(label: String) async throws(DBusError) -> DBusConnection {
        guard let reopen else { throw .disconnected }
        return try await reopen(label)
    }

    /// The address the system bus is reached at, as libdbus resolves it.
    public static var systemBusAddress: String {
        getenv("DBUS_SYSTEM_BUS_ADDRESS").map { String(cString: $0) }
            ?? "unix:path=/var/run/dbus/system_bus_socket"
    }

    private static let threadsInitialised: Bool = dbus_threads_init_default() != 0

    /// Opening blocks on a socket connect and the `Hello` round trip, so it runs
    /// on a Dispatch thread rather than on the cooperative pool. `label` names
    /// the loop's thread (`dbus system`, `dbus bus`).
    private static func open(
        address: String, label: String, _ body: @escaping @Sendable (inout LibDBusError) -> OpaquePointer?
    ) async throws(DBusError) -> DBusConnection {
        _ = threadsInitialised
        let result: Result<DBusConnection, DBusError> = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                var error = LibDBusError()
                guard let raw = body(&error) else {
                    continuation.resume(returning: .failure(
                        .connectionFailed(address: address, name: error.name, message: error.message)))
                    return
                }
                dbus_connection_set_exit_on_disconnect(raw, 0)
                let connection = DBusConnection(raw: raw, label: label)
                connection.loop.start { connection.drain() }
                connection.loop.sync { connection.install() }
                continuation.resume(returning: .success(connection))
            }
        }
        return try result.get()
    }

    deinit {
        dbus_connection_unref(raw)
    }

    /// Closes the connection. Pending calls fail with `NoReply`, signal streams
    /// finish. Safe to call more than once, from any thread.
    public func close() {
        loop.sync { self.shutDown() }
    }

    /// Whether the connection is still open.
    public var isConnected: Bool {
        isOpen && dbus_connection_get_is_connected(raw) != 0
    }

    /// Runs on the loop, so no socket or timer handler runs concurrently with
    /// it; the loop's thread ends after it.
    func shutDown() {
        guard open.exchange(false, ordering: .acquiringAndReleasing) else { return }
        defer { loop.stop() }
        dbus_connection_close(raw)
        drain()
        let (streams, context) = lock.withLock { _ in
            for path in objects.keys { dbus_connection_unregister_object_path(raw, path) }
            objects.removeAll()
            dbus_connection_remove_filter(raw, DBusConnection.filterTrampoline, callbackContext?.toOpaque())
            let streams = subscriptions.values.map(\.finish)
            subscriptions.removeAll()
            defer { callbackContext = nil }
            return (streams, callbackContext)
        }
        dbus_connection_set_watch_functions(raw, nil, nil, nil, nil, nil)
        dbus_connection_set_timeout_functions(raw, nil, nil, nil, nil, nil)
        dbus_connection_set_dispatch_status_function(raw, nil, nil, nil)
        // libdbus keeps a closed connection's pending calls until its last
        // unref, and their timeouts no longer fire: each caller is told now.
        inFlight.endAll()
        for finish in streams { finish() }
        context?.release()
    }

    // MARK: Integration with the event loop

    private func install() {
        let context = Unmanaged.passRetained(self)
        lock.withLock { _ in callbackContext = context }
        let pointer = context.toOpaque()
        dbus_connection_set_watch_functions(
            raw, DBusConnection.addWatch, DBusConnection.removeWatch, DBusConnection.toggleWatch, pointer, nil)
        dbus_connection_set_timeout_functions(
            raw, DBusConnection.addTimeout, DBusConnection.removeTimeout, DBusConnection.toggleTimeout, pointer, nil)
        dbus_connection_set_dispatch_status_function(raw, DBusConnection.dispatchStatusChanged, pointer, nil)
        dbus_connection_add_filter(raw, DBusConnection.filterTrampoline, pointer, nil)
        drain()
    }

    /// Delivers every message libdbus has read (`dbus_connection_dispatch`),
    /// one at a time. The subscribers' handlers run after each dispatch, on
    /// the loop but outside the lock: a handler may subscribe, call or emit
    /// on this connection, and a slow one holds up only this connection.
    func drain() {
        precondition(loop.isCurrent, "libdbus dispatch off the connection's loop")
        var pending: [(deliver: @Sendable (DBusMessage) -> Void, message: DBusMessage)] = []
        var more = true
        while more {
            lock.withLock { _ in
                more = dbus_connection_dispatch(raw) == DBUS_DISPATCH_DATA_REMAINS
                swap(&pending, &deliveries)
            }
            for (deliver, message) in pending { deliver(message) }
            pending.removeAll(keepingCapacity: true)
        }
    }

    static func connection(_ context: UnsafeMutableRawPointer?) -> DBusConnection {
        Unmanaged<DBusConnection>.fromOpaque(context!).takeUnretainedValue()
    }

    /// Messages became available. On the loop (where libdbus is always
    /// called) the loop drains before it sleeps again. No wake-up function is
    /// installed: the loop re-reads the watches before every `poll()`.
    private static let dispatchStatusChanged: DBusDispatchStatusFunction = { _, status, context in
        guard status == DBUS_DISPATCH_DATA_REMAINS else { return }
        let connection = DBusConnection.connection(context)
        if connection.loop.isCurrent { return }
        connection.loop.async { if connection.isOpen { connection.drain() } }
    }

    /// The connection's event loop as a task executor. A task that prefers it
    /// (`withTaskExecutorPreference`) runs on the loop's thread: a call is
    /// sent at once and the task resumes in the wake-up that read the reply,
    /// without handing the reply to another thread. Keep such work short:
    /// while it runs, nothing else on this connection does.
    public var executor: any TaskExecutor { loop }
}
