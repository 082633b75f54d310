import DBus
import Foundation
import PeerHarness
import Testing

/// The connection's own thread: asleep while the bus is quiet, the thread a
/// task on its executor resumes on, and gone once the connection closes.
@Suite(.serialized)
struct DBusEventLoopTests {
    private static func getID() throws -> DBusMessage {
        try DBusMessage.methodCall(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus", method: "GetId")
    }

    @Test func anIdleConnectionsThreadSleepsUntilTheBusSpeaks() async throws {
        let bus = try PrivateBus()
        defer { bus.remove() }
        let before = Self.loopThreads()
        let connection = try await DBusConnection.connect(address: bus.address)
        defer { connection.close() }
        _ = try await connection.call(try Self.getID())
        let thread = try #require(Self.loopThreads().subtracting(before).first, "no thread named 'dbus bus' appeared")

        // Going to sleep counts as a switch too: let the loop get there first.
        try await Task.sleep(for: .milliseconds(200))
        let quiet = try Self.switches(of: thread)
        try await Task.sleep(for: .seconds(1))
        let after = try Self.switches(of: thread)
        #expect(after == quiet, "the loop woke \(after - quiet) times with nothing to do")

        _ = try await connection.call(try Self.getID())
        #expect(try Self.switches(of: thread) > quiet, "a call's reply did not wake the thread watched")

        connection.close()
        let ended = try await withDeadline(.seconds(10), "the loop's thread to end") {
            while Self.loopThreads().contains(thread) { try await Task.sleep(for: .milliseconds(10)) }
            return true
        }
        #expect(ended)
    }

    @Test func aTaskOnTheConnectionsExecutorResumesOnItsThreadAfterEachCall() async throws {
        let bus = try PrivateBus()
        defer { bus.remove() }
        let connection = try await DBusConnection.connect(address: bus.address)
        defer { connection.close() }
        let names = try await withTaskExecutorPreference(connection.executor) {
            var names: [String] = [Self.currentThreadName]
            for _ in 0..<3 {
                _ = try await connection.call(try Self.getID())
                names.append(Self.currentThreadName)
            }
            return names
        }
        #expect(names == Array(repeating: "dbus bus", count: 4))
    }

    @Test func aTaskOnAClosedConnectionsExecutorStillRuns() async throws {
        let bus = try PrivateBus()
        defer { bus.remove() }
        let connection = try await DBusConnection.connect(address: bus.address)
        let outcome = try await withDeadline(.seconds(10), "the task on a closed connection's executor") {
            try await withTaskExecutorPreference(connection.executor) {
                connection.close()
                do {
                    _ = try await connection.call(try Self.getID())
                    return "answered"
                } catch {
                    try await Task.sleep(for: .milliseconds(1))
                    return "\(error)"
                }
            }
        }
        #expect(outcome == "\(DBusError.disconnected)")
    }

    // MARK: Reading threads from /proc

    private static var currentThreadName: String {
        (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
    }

    private static func loopThreads() -> Set<String> {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return Set(tasks.filter { task in
            (try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8))?.hasPrefix("dbus bus") == true
        })
    }

    /// Voluntary and involuntary context switches: each wake-up adds one.
    private static func switches(of thread: String) throws -> Int {
        let status = try String(contentsOfFile: "/proc/self/task/\(thread)/status", encoding: .utf8)
        return status.split(separator: "\n")
            .filter { $0.hasPrefix("voluntary_ctxt_switches") || $0.hasPrefix("nonvoluntary_ctxt_switches") }
            .compactMap { Int($0.split(separator: "\t").last?.trimmingCharacters(in: .whitespaces) ?? "") }
            .reduce(0, +)
    }
}
