internal import CDBus
internal import CSystem
internal import Dispatch
internal import Glibc
import Synchronization

/// The one thread that does a connection's libdbus work. It sleeps in
/// `poll()` on the bus socket and an eventfd, limited by the earliest libdbus
/// timeout, so an idle connection makes no wake-ups; a reply or signal wakes
/// it directly, with no Dispatch manager thread handing the socket on.
///
/// It is also a task executor. A task that prefers it runs on this thread, so
/// its calls go out at once, and the reply resumes it in the same wake-up that
/// read the reply: one thread wake per round trip, as for a blocking client.
///
/// `@unchecked Sendable`: the inbox is under a lock; everything else is
/// touched only on the loop's own thread.
final class DBusEventLoop: TaskExecutor, @unchecked Sendable {
    private enum Work {
        case closure(@Sendable () -> Void)
        case job(UnownedJob)
    }

    private struct Inbox {
        var work: [Work] = []
        /// The eventfd was written (or the loop is about to look) since the
        /// loop last emptied the inbox.
        var signalled = false
        var stopped = false
    }

    private let inbox = Mutex(Inbox())
    private let wake: Int32
    private let threadID = Atomic<UInt>(0)
    private let name: String
    /// Bytes the bus had sent that were still unread when the socket was
    /// last readable: how far behind this connection's reader is.
    let backlog = Atomic<Int>(0)

    // Touched only on the loop's thread.
    private var watches: [OpaquePointer] = []
    private var afterIO: () -> Void = {}
    private var running = true
    let timeouts = TimeoutScheduler()

    init(name: String) {
        self.name = name
        wake = eventfd(0, Int32(EFD_CLOEXEC) | Int32(EFD_NONBLOCK))
        precondition(wake >= 0, "eventfd failed: errno \(errno)")
    }

    /// Starts the thread; `afterIO` runs on it after every wake-up's reads,
    /// timeouts and queued work (the connection's dispatch).
    func start(afterIO: @escaping () -> Void) {
        self.afterIO = afterIO
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        var thread = pthread_t()
        let context = Unmanaged.passRetained(self).toOpaque()
        let created = pthread_create(&thread, &attributes, { context in
            Unmanaged<DBusEventLoop>.fromOpaque(context!).takeRetainedValue().run()
            return nil
        }, context)
        precondition(created == 0, "pthread_create failed: \(created)")
    }

    /// Whether the caller is on the loop's thread.
    var isCurrent: Bool { threadID.load(ordering: .relaxed) == UInt(pthread_self()) }

    /// Runs `body` now when on the loop's thread, else next on it.
    func perform(_ body: @escaping @Sendable () -> Void) {
        if isCurrent { body() } else { async(body) }
    }

    /// Runs `body` on the loop's thread after whatever it is doing now.
    func async(_ body: @escaping @Sendable () -> Void) {
        if !post(.closure(body)) { body() }
    }

    /// Runs `body` on the loop's thread and waits for it; inline when already
    /// there, or when the loop has stopped.
    func sync(_ body: @escaping @Sendable () -> Void) {
        if isCurrent { return body() }
        let done = DispatchSemaphore(value: 0)
        if post(.closure({ body(); done.signal() })) { done.wait() } else { body() }
    }

    /// Called on the loop's thread; the thread ends once the current work is done.
    func stop() {
        precondition(isCurrent)
        running = false
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        // A closed connection's loop has ended: its tasks carry on in the pool.
        if !post(.job(job)) {
            DispatchQueue.global().async { job.runSynchronously(on: globalConcurrentExecutor.asUnownedTaskExecutor()) }
        }
    }

    /// Queues `work`; false when the loop has stopped and will not run it.
    private func post(_ work: Work) -> Bool {
        let current = isCurrent
        return inbox.withLock { inbox in
            guard !inbox.stopped else { return false }
            inbox.work.append(work)
            // On the loop's own thread, the inbox is read again before
            // polling. The write is under the lock because the loop closes
            // the eventfd once it has marked itself stopped under it.
            if !inbox.signalled && !current {
                var one: UInt64 = 1
                _ = write(wake, &one, 8)
            }
            inbox.signalled = true
            return true
        }
    }

    // MARK: libdbus watches (called on the loop's thread)

    func add(_ watch: OpaquePointer) { watches.append(watch) }

    func remove(_ watch: OpaquePointer) { watches.removeAll { $0 == watch } }

    private func contains(_ watch: OpaquePointer) -> Bool { watches.contains { $0 == watch } }

    // MARK: The loop

    private func run() {
        threadID.store(UInt(pthread_self()), ordering: .relaxed)
        csystem_set_thread_name(String("dbus \(name)".prefix(15)))
        var polled: [OpaquePointer] = []
        var descriptors: [pollfd] = []
        var work: [Work] = []
        while running {
            inbox.withLock { inbox in
                swap(&work, &inbox.work)
                inbox.signalled = false
            }
            if !work.isEmpty {
                run(work)
                work.removeAll(keepingCapacity: true)
                afterIO()
                // Work may have queued more work: look again before sleeping.
                continue
            }
            polled.removeAll(keepingCapacity: true)
            descriptors.removeAll(keepingCapacity: true)
            descriptors.append(pollfd(fd: wake, events: Int16(POLLIN), revents: 0))
            for watch in watches where dbus_watch_get_enabled(watch) != 0 {
                let flags = dbus_watch_get_flags(watch)
                var events: Int16 = 0
                if flags & CDBUS_WATCH_READABLE != 0 { events |= Int16(POLLIN) }
                if flags & CDBUS_WATCH_WRITABLE != 0 { events |= Int16(POLLOUT) }
                polled.append(watch)
                descriptors.append(pollfd(fd: dbus_watch_get_unix_fd(watch), events: events, revents: 0))
            }
            let ready = poll(&descriptors, nfds_t(descriptors.count), timeouts.pollTimeout())
            if ready < 0 {
                let error = errno
                // ENOMEM: the kernel could not allocate its poll table just
                // now. Try again after a pause rather than spin or stop.
                // EFAULT and EINVAL would be our own mistake (three
                // descriptors at most): say so rather than spin.
                if error == ENOMEM {
                    usleep(10_000)
                } else if error != EINTR {
                    fatalError("poll failed on the D-Bus connection: errno \(error)")
                }
            }
            if ready > 0 {
                if descriptors[0].revents != 0 {
                    var count: UInt64 = 0
                    _ = read(wake, &count, 8)
                }
                for (index, watch) in polled.enumerated() where descriptors[index + 1].revents != 0 {
                    handle(watch, events: descriptors[index + 1].revents, fd: descriptors[index + 1].fd)
                }
            }
            timeouts.fireDue()
            afterIO()
        }
        let rest: [Work] = inbox.withLock { inbox in
            inbox.stopped = true
            return inbox.work
        }
        run(rest)
        afterIO = {}
        watches.removeAll()
        close(wake)
    }

    private func run(_ work: [Work]) {
        for item in work {
            switch item {
            case .closure(let body): body()
            case .job(let job): job.runSynchronously(on: asUnownedTaskExecutor())
            }
        }
    }

    /// Hands a ready socket to libdbus. libdbus reads at most 2048 bytes per
    /// call; reading everything waiting in one wake-up saves a poll per 2 KiB.
    /// 256 KiB is more than a Unix socket holds by default.
    private func handle(_ watch: OpaquePointer, events: Int16, fd: Int32) {
        // An earlier handler in this wake-up may have removed (and freed) it.
        guard contains(watch) else { return }
        var condition: UInt32 = 0
        if events & Int16(POLLIN) != 0 { condition |= CDBUS_WATCH_READABLE }
        if events & Int16(POLLOUT) != 0 { condition |= CDBUS_WATCH_WRITABLE }
        if events & Int16(POLLERR) != 0 { condition |= CDBUS_WATCH_ERROR }
        if events & Int16(POLLHUP) != 0 { condition |= CDBUS_WATCH_HANGUP }
        dbus_watch_handle(watch, condition)
        guard condition & CDBUS_WATCH_READABLE != 0 else { return }
        let waiting = Int(csystem_bytes_waiting(fd))
        backlog.store(waiting, ordering: .relaxed)
        for _ in 0..<min(127, max(0, (waiting + 2047) / 2048)) {
            guard contains(watch), dbus_watch_get_enabled(watch) != 0 else { return }
            dbus_watch_handle(watch, CDBUS_WATCH_READABLE)
        }
    }
}
