import DBus
import Host
import PeerHarness
import Testing

/// The sleep lock against python-dbusmock's logind, whose `Inhibit` hands
/// out a pipe and drops the lock when its end is closed, as logind does.
struct SleepInhibitorTests {
    /// An inhibitor on a private bus with python-dbusmock's logind.
    static func withLogind(_ body: (SleepInhibitor, LogindMock, DBusConnection) async throws -> Void) async throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        let logind = try await LogindMock(on: bus)
        defer { logind.process.stop() }
        let connection = try await DBusConnection.connect(address: bus.address)
        try await body(SleepInhibitor(bus: connection), logind, connection)
    }

    /// logind drops a lock once its descriptor is closed, on its own time.
    static func untilLogindHoldsNoLock(_ logind: LogindMock, _ connection: DBusConnection) async throws {
        try await withDeadline(.seconds(5), "logind dropping the released lock") {
            while try await !logind.inhibitors(via: connection).isEmpty { try await Task.sleep(for: .milliseconds(20)) }
        }
    }

    @Test func oneDelayLockIsHeldUntilReleasedAndCanBeTakenAgain() async throws {
        try await Self.withLogind { inhibitor, logind, connection in
            await inhibitor.start()
            await inhibitor.take()
            #expect(await inhibitor.holdsLock)
            let locks = try await logind.inhibitors(via: connection)
            #expect(locks.count == 1, "taken once, however often asked: \(locks)")
            guard case .structure(let lock)? = locks.first else { return }
            #expect(lock.prefix(4).compactMap(\.string) == ["sleep", "waymark", "commit recorded samples before sleep", "delay"])

            await inhibitor.release()
            #expect(await !inhibitor.holdsLock)
            try await Self.untilLogindHoldsNoLock(logind, connection)
            await inhibitor.take()
            #expect(try await logind.inhibitors(via: connection).count == 1)
            await inhibitor.release()
        }
    }

    /// Takes that overlap (a wake and the start at once): in either order
    /// logind ends up holding one lock, and one release drops it.
    @Test func overlappingTakesHoldOneLock() async throws {
        try await Self.withLogind { inhibitor, logind, connection in
            async let first: Void = inhibitor.take()
            async let second: Void = inhibitor.take()
            _ = await (first, second)
            #expect(try await logind.inhibitors(via: connection).count == 1, "two takes at once hold one lock")
            await inhibitor.release()
            try await Self.untilLogindHoldsNoLock(logind, connection)
        }
    }

    @Test func withoutLogindThereIsNoLockToTakeAndNothingFails() async throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        let connection = try await DBusConnection.connect(address: bus.address)
        let inhibitor = SleepInhibitor(bus: connection)
        // No logind on the bus: the call fails at once and the daemon starts on.
        try await withDeadline(.seconds(5), "asking a bus without logind") { await inhibitor.take() }
        #expect(await !inhibitor.holdsLock)
        await inhibitor.release()
        #expect(await !inhibitor.holdsLock)
    }
}
