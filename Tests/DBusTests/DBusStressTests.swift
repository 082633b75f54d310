import DBus
import Foundation
import PeerHarness
import Synchronization
import Testing

struct DBusStressTests {
    /// Connections opened and closed in a row reuse the same descriptor
    /// number; each new one must still hear its replies.
    @Test func everyReplyArrivesOnConnectionsOpenedAfterClosedOnes() async throws {
        let bus = try PrivateBus()
        defer { bus.remove() }
        let mock = try await BlueZMock(on: bus)
        defer { withExtendedLifetime(mock) {} }
        for round in 0..<1_000 {
            let connection = try await DBusConnection.connect(address: bus.address)
            defer { connection.close() }
            do {
                _ = try await connection.call(
                    destination: "org.bluez", path: "/", interface: "org.freedesktop.DBus.ObjectManager",
                    method: "GetManagedObjects", timeout: .seconds(3))
            } catch {
                Issue.record("connection \(round): \(error)")
                return
            }
        }
    }

    /// A burst the handlers cannot keep up with queues in the socket: the
    /// connection says how far behind it is while it drains, and nothing
    /// once it caught up.
    @Test func aConnectionBehindABurstSaysHowFarAndCatchesUp() async throws {
        let bus = try PrivateBus()
        defer { bus.remove() }
        let (reader, sender) = (try await DBusConnection.connect(address: bus.address), try await DBusConnection.connect(address: bus.address))
        defer { reader.close(); sender.close() }
        let seen = Mutex((count: 0, most: 0, last: 0))
        let count = 2_000
        let (done, finished) = AsyncStream.makeStream(of: Void.self)
        let subscription = try await reader.subscribe(MatchRule(interface: "io.waymark.Test", member: "Burst")) { _ in
            // A slow handler: 100 µs a signal.
            usleep(100)
            let total = seen.withLock { seen in
                seen.count += 1
                (seen.most, seen.last) = (max(seen.most, reader.unreadBytes), reader.unreadBytes)
                return seen.count
            }
            if total == count { finished.yield() }
        }
        defer { subscription.cancel() }
        let payload = DBusValue.bytes([UInt8](repeating: 0xAB, count: 200))
        for _ in 0..<count { try sender.emit(path: "/io/waymark/Test", interface: "io.waymark.Test", name: "Burst", arguments: [payload]) }
        var iterator = done.makeAsyncIterator()
        _ = await iterator.next()
        let (most, last) = seen.withLock { ($0.most, $0.last) }
        #expect(most >= 16 * 1024, "at most \(most) bytes unread while \(count) signals of 200 bytes queued")
        #expect(last < most, "caught up: \(last) bytes unread at the last signal")
    }
}
