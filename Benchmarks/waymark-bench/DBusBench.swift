import DBus
import Foundation
import Peers

/// D-Bus figures against a private dbus-daemon: method round trips against a
/// dbus-python client making the same calls, and signals received from a
/// burst emitted inside the BlueZ mock.
struct DBusBench {
    var quick: Bool

    func run(into report: inout BenchReport) async throws {
        let bus = try PrivateBus()
        defer { bus.remove() }
        let calls = quick ? 2_000 : 20_000
        let connection = try await DBusConnection.connect(address: bus.address)
        defer { connection.close() }
        let getID = try DBusMessage.methodCall(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus", method: "GetId")

        // Warm up both paths once.
        for _ in 0..<200 { _ = try await connection.call(getID) }
        // Five interleaved runs of each, so that a busy moment on the
        // machine falls on all of them alike.
        var onLoop: [Double] = [], onLoopCPU: [Double] = [], fromPool: [Double] = [], pipelined: [Double] = []
        var python: [(wall: Double, cpu: Double)] = []
        for _ in 0..<(quick ? 1 : 5) {
            // The process's CPU time: the loop's thread, as nothing else runs.
            let cpu = ResourceUsage.cpuSeconds
            onLoop.append(Double(calls) / (try await withTaskExecutorPreference(connection.executor) {
                try await measure {
                    for _ in 0..<calls { _ = try await connection.call(getID) }
                }
            }))
            onLoopCPU.append(Double(calls) / (ResourceUsage.cpuSeconds - cpu))
            fromPool.append(Double(calls) / (try await measure {
                for _ in 0..<calls { _ = try await connection.call(getID) }
            }))
            pipelined.append(Double(calls) / (try await measure {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    let lanes = 32
                    for lane in 0..<lanes {
                        group.addTask {
                            for _ in stride(from: lane, to: calls, by: lanes) { _ = try await connection.call(getID) }
                        }
                    }
                    try await group.waitForAll()
                }
            }))
            python.append(try pythonCalls(bus, calls))
        }
        let pythonWall = python.map(\.wall), pythonCPU = python.map(\.cpu)
        report.add("dbus.calls_sequential", runs: onLoop, unit: "calls/s", baselineRuns: pythonWall,
                   baselineName: "dbus-python call_blocking",
                   note: "one call in flight, GetId on dbus-daemon, from a task on the connection's executor")
        report.add("dbus.calls_sequential_cpu", runs: onLoopCPU, unit: "calls/CPU-s", baselineRuns: pythonCPU,
                   baselineName: "dbus-python call_blocking",
                   note: "the same calls per second of the caller's CPU (most of it is the kernel waking dbus-daemon and sleeping in poll)")
        report.add("dbus.calls_sequential_pool", runs: fromPool, unit: "calls/s", baselineRuns: pythonWall,
                   baselineName: "dbus-python call_blocking",
                   note: "the same from a task in the global pool: the call and its reply each cross to another thread")
        report.add("dbus.calls_pipelined", runs: pipelined, unit: "calls/s", baselineRuns: pythonWall,
                   baselineName: "dbus-python call_blocking", note: "32 calls in flight")

        let mock = try await BlueZMock(on: bus)
        try await mock.control(connection, "AddAdapter", [.string("hci0"), .string("bench")])
        let device = try await mock.control(connection, interface: "io.waymark.BlueZMock", "AddAdvertisingDevice", [
            .string("hci0"), .string("C0:FF:EE:00:00:01"), .string("bench"),
            .dictionary(key: "q", value: "v", []), .dictionary(key: "s", value: "v", []), .int16(-50),
        ]).first?.string ?? ""
        let burst = quick ? 5_000 : 50_000
        let signals = try await connection.signals(matching: MatchRule(
            sender: "org.bluez", interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged", path: device))
        let received = try await measure {
            async let emitted: [DBusValue] = mock.control(
                connection, interface: "io.waymark.BlueZMock", "EmitBurst", [.objectPath(device), .uint32(UInt32(burst))])
            var count = 0
            for await message in signals {
                _ = try message.arguments()
                count += 1
                if count == burst { break }
            }
            _ = try await emitted
        }
        report.add("dbus.signals_received", Double(burst) / received, unit: "signals/s",
                   note: "PropertiesChanged burst emitted inside python-dbusmock, decoded; the emitter bounds this")
        withExtendedLifetime(mock) {}
    }

    /// Calls per second and per CPU second of dbus-python's blocking call,
    /// timed inside Python.
    private func pythonCalls(_ bus: PrivateBus, _ calls: Int) throws -> (wall: Double, cpu: Double) {
        let script = """
        import dbus, sys, time
        bus = dbus.bus.BusConnection(sys.argv[1])
        call = lambda: bus.call_blocking('org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus', 'GetId', '', ())
        for _ in range(200): call()
        n = int(sys.argv[2]); t = time.perf_counter(); c = time.process_time()
        for _ in range(n): call()
        print(n / (time.perf_counter() - t), n / (time.process_time() - c))
        """
        let path = bus.directory.file("calls.py")
        try script.write(toFile: path, atomically: true, encoding: .utf8)
        let process = try ChildProcess("/usr/bin/python3", [path, bus.address, String(calls)],
                                       aptPackage: "python3-dbus", logPath: bus.directory.file("calls.log"))
        let status = try process.wait(timeout: 300)
        let rates = process.output.split(whereSeparator: \.isWhitespace).compactMap { Double($0) }
        guard status == 0, rates.count == 2 else {
            throw PeerError.startFailed("dbus-python client", output: process.output)
        }
        return (rates[0], rates[1])
    }
}
