import Basics
import Foundation
import Location
import PeerHarness
import Synchronization
import Telemetry
import Testing

/// The reader through the faults gpsd clients are known to mishandle.
@Suite(.serialized)
struct LocationFaultTests {
    static var quickRetry: LocationOptions {
        var options = LocationOptions(noDataTimeout: .seconds(10))
        options.retryBase = .milliseconds(50)
        options.retryCap = .milliseconds(300)
        return options
    }

    @Test func gpsdKilledAndRestartedGivesUnreachableThenFixesAgainAndNoFixPeriodsGiveNoFix() async throws {
        let directory = try TemporaryDirectory("waymark-gpsd")
        defer { directory.remove() }
        let receiver = try SimulatedReceiver()
        defer { receiver.stop() }
        var gpsd = try GPSDaemon(device: receiver.terminal.path, directory: directory)
        let reader = LocationReader(source: .gpsd(host: "127.0.0.1", port: gpsd.port), options: Self.quickRetry, clock: ContinuousClock())
        let reading = Task { await reader.run() }
        let events = reader.events

        let first = try await events.nextMatching(within: .seconds(30)) { if case .fix(let fix) = $0 { fix.mode == 3 } else { false } }
        guard case .fix(let fix) = first else { return }
        #expect(abs((fix.lat ?? 0) - 48.217558333) < 1e-9)
        #expect(fix.altMSL == 765.8 && fix.speed.map { abs($0 - 1.5 * 0.514444) < 1e-3 } == true)

        gpsd.process.kill(SIGKILL)
        _ = try await events.nextMatching(within: .seconds(30)) { $0 == .state(.unreachable) }

        gpsd = try GPSDaemon(device: receiver.terminal.path, port: gpsd.port, directory: directory)
        _ = try await events.nextMatching(within: .seconds(30)) { if case .fix = $0 { true } else { false } }
        #expect(await reader.counters.connections == 2)

        receiver.hasFix = false
        _ = try await events.nextMatching(within: .seconds(30)) { $0 == .state(.noFix) }
        receiver.hasFix = true
        _ = try await events.nextMatching(within: .seconds(30)) { $0 == .state(.fix) }
        reading.cancel()
        await reading.value
        gpsd.stop()
    }

    /// A peer that accepts and then says nothing, as a socket whose other end
    /// vanished does: probed after one quiet period, dropped after the second,
    /// then reconnected after the backoff. All on the test clock.
    @Test func aSilentConnectionIsProbedThenDroppedAndReconnected() async throws {
        let server = try SilentServer()
        let clock = TestClock()
        var options = LocationOptions(noDataTimeout: .seconds(10))
        options.noDataTimeout = .seconds(10)
        options.retryBase = .seconds(1)
        options.retryCap = .seconds(1)
        let reader = LocationReader(source: .gpsd(host: "127.0.0.1", port: server.port), options: options, clock: clock)
        let reading = Task { await reader.run() }

        try await server.wait(for: "the watch request") { $0.received.first?.contains(#"?WATCH={"enable":true,"json":true};"#) == true }
        try await clock.waitForSleepers(1)
        clock.advance(by: .seconds(10))
        try await server.wait(for: "the probe") { $0.received.first?.contains("?VERSION;") == true }
        #expect(server.closed == 0)

        try await clock.waitForSleepers(1)
        clock.advance(by: .seconds(10))
        try await server.wait(for: "the drop") { $0.closed == 1 }
        #expect(await reader.counters.watchdogDrops == 1)

        // Backoff on the test clock: nothing until it moves.
        try await clock.waitForSleepers(1)
        #expect(server.received.count == 1)
        clock.advance(by: .seconds(1))
        try await server.wait(for: "the reconnect") { $0.received.count == 2 }
        reading.cancel()
        await reading.value
    }

    @Test func nothingListeningGivesUnreachableAndRetriesOnTheClock() async throws {
        let port = try FreePort.tcp()
        let clock = TestClock()
        let reader = LocationReader(source: .gpsd(host: "127.0.0.1", port: port), options: Self.quickRetry, clock: clock)
        let reading = Task { await reader.run() }
        #expect(try await reader.events.next(within: .seconds(10), "a state") == .state(.unreachable))
        for attempt in 1...3 {
            try await clock.waitForSleepers(1)
            #expect(await reader.counters.connections == 0, "attempt \(attempt)")
            clock.advance(by: .milliseconds(300))
        }
        reading.cancel()
        await reading.value
    }

    /// The NMEA reader on a pty, as on a USB receiver: a real log written in
    /// random fragments with garbage between, read at a set baud rate.
    @Test func nmeaFromASerialDeviceGivesTheSameFixesAsTheOfflineDecoder() async throws {
        let terminal = try PseudoTerminal()
        let url = try #require(Bundle.module.url(forResource: "nl2008u.log", withExtension: nil, subdirectory: "gpsd"))
        let log = try String(contentsOf: url, encoding: .utf8)
        let expected = try NMEAFixAssemblerTests.fixes("nl2008u.log")
        let reader = LocationReader(source: .nmea(device: terminal.path, baud: 4800), options: LocationOptions(noDataTimeout: .seconds(10)), clock: ContinuousClock())
        let reading = Task { await reader.run() }
        #expect(try await reader.events.next(within: .seconds(10), "the device opening") == .state(.noDevice))

        var rng = SplitMix64(seed: 5)
        // Line noise between sentences: a bad checksum and control bytes.
        let noisy = log.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            Int.random(in: 0..<8, using: &rng) == 0 ? "$GPGGA,garbage*00\r\n\u{1}\u{2}\r\n" + line : String(line)
        }.joined(separator: "\n")
        var bytes = Array(noisy.utf8)[...]
        while !bytes.isEmpty {
            let take = Int.random(in: 1...64, using: &rng)
            terminal.send(String(decoding: bytes.prefix(take), as: UTF8.self), waitForRoom: true)
            bytes = bytes.dropFirst(take)
            try await Task.sleep(for: .microseconds(200))
        }
        let events = reader.events
        let fixes = try await withDeadline(.seconds(30), "every epoch but the open one") {
            var fixes: [Fix] = []
            for await event in events {
                if case .fix(let fix) = event { fixes.append(fix) }
                if fixes.count == expected.count - 1 { break }
            }
            return fixes
        }
        #expect(fixes == Array(expected.dropLast()))
        #expect(await reader.counters.rejectedLines > 0)
        reading.cancel()
        await reading.value
    }
}

extension LocationFaultTests {
    /// gpsd up with no receiver: no device.
    @Test func gpsdWithoutAReceiverGivesNoDevice() async throws {
        let directory = try TemporaryDirectory("waymark-gpsd")
        defer { directory.remove() }
        let gpsd = try GPSDaemon(device: nil, directory: directory)
        defer { gpsd.stop() }
        let reader = LocationReader(source: .gpsd(host: "127.0.0.1", port: gpsd.port), options: Self.quickRetry, clock: ContinuousClock())
        let reading = Task { await reader.run() }
        #expect(try await reader.events.next(within: .seconds(20), "the device list") == .state(.noDevice))
        reading.cancel()
        await reading.value
    }

    /// A receiver unplugged while gpsd runs: gpsd reports the device with
    /// `activated: 0` (lines as gpsd 3.22 writes them), and the state goes
    /// from fix to no device; the open epoch is still delivered.
    @Test func aReceiverUnpluggedFromGpsdGivesNoDevice() async throws {
        let server = try SilentServer(greeting: """
            {"class":"VERSION","release":"3.22","rev":"3.22","proto_major":3,"proto_minor":14}
            {"class":"DEVICES","devices":[{"class":"DEVICE","path":"/dev/ttyACM0","activated":"2026-11-30T13:52:51.496Z","native":0,"bps":9600}]}
            {"class":"WATCH","enable":true,"json":true,"nmea":false,"raw":0,"scaled":false,"timing":false,"split24":false,"pps":false}
            {"class":"TPV","device":"/dev/ttyACM0","mode":3,"time":"2026-11-30T12:00:00.000Z","lat":48.217558333,"lon":8.414495000,"altMSL":765.8000}
            {"class":"DEVICE","path":"/dev/ttyACM0","activated":0}

            """)
        let reader = LocationReader(source: .gpsd(host: "127.0.0.1", port: server.port), options: LocationOptions(noDataTimeout: .seconds(10)), clock: TestClock())
        let reading = Task { await reader.run() }
        var events: [LocationEvent] = []
        for _ in 0..<4 { events.append(try await reader.events.next(within: .seconds(20), "an event")) }
        #expect(events.first == .state(.noFix))
        #expect(events.contains(.state(.fix)))
        #expect(events.contains { if case .fix(let fix) = $0 { fix.lat == 48.217558333 } else { false } })
        #expect(events.last == .state(.noDevice))
        reading.cancel()
        await reading.value
    }

    /// A receiver that stops talking after an epoch: that last fix is
    /// delivered once the epoch has been quiet for `epochSettle`, not held
    /// back until a next epoch that never comes. The hook is told it closed
    /// the settle time after the last line, however late the alarm rang:
    /// the recorder times the fix then, as replay does. On the test clock.
    @Test func theLastEpochIsDeliveredOnceItSettlesAndTimedAtTheSettleTime() async throws {
        let server = try SilentServer(greeting: """
            {"class":"DEVICES","devices":[{"class":"DEVICE","path":"/dev/ttyACM0","activated":"2026-11-30T13:52:51.496Z","native":0,"bps":9600}]}
            {"class":"TPV","device":"/dev/ttyACM0","mode":3,"time":"2026-11-30T12:00:00.000Z","lat":48.2208,"lon":8.421881667}

            """)
        let clock = TestClock()
        var options = LocationOptions(noDataTimeout: .seconds(10))
        options.epochSettle = .milliseconds(300)
        let hooked = Mutex<[Duration]>([])
        let reader = LocationReader(source: .gpsd(host: "127.0.0.1", port: server.port), options: options, clock: clock, onTrace: { trace in
            if case .closed(_, let afterLastLine) = trace { hooked.withLock { $0.append(afterLastLine) } }
        })
        let reading = Task { await reader.run() }
        _ = try await reader.events.nextMatching(within: .seconds(20)) { $0 == .state(.fix) }
        // The no-data watchdog and the settle timer.
        try await clock.waitForSleepers(2)
        clock.advance(by: .milliseconds(299))
        #expect(clock.sleepers == 2, "the epoch is still open")
        clock.advance(by: .milliseconds(251))
        let event = try await reader.events.nextMatching(within: .seconds(20)) { if case .fix = $0 { true } else { false } }
        guard case .fix(let fix) = event else { return }
        #expect(fix.lat == 48.2208 && fix.lon == 8.421881667)
        #expect(hooked.withLock { $0 } == [.milliseconds(300)], "the alarm rang 250 ms late")
        reading.cancel()
        await reading.value
    }

    /// `gpsd:///path`: a unix socket (here socat in front of gpsd's TCP port).
    @Test func gpsdReachedThroughAUnixSocketGivesFixes() async throws {
        let directory = try TemporaryDirectory("waymark-gpsd")
        defer { directory.remove() }
        let receiver = try SimulatedReceiver()
        defer { receiver.stop() }
        let gpsd = try GPSDaemon(device: receiver.terminal.path, directory: directory)
        defer { gpsd.stop() }
        let path = directory.file("gpsd.sock")
        let bridge = try ChildProcess("socat", ["UNIX-LISTEN:\(path),fork", "TCP:127.0.0.1:\(gpsd.port)"], aptPackage: "socat",
                                      logPath: directory.file("socat.log"))
        defer { bridge.stop() }
        try await withDeadline(.seconds(10), "socat's socket") {
            while !FileManager.default.fileExists(atPath: path) { try await Task.sleep(for: .milliseconds(5)) }
        }
        let reader = LocationReader(source: .gpsdSocket(path: path), options: Self.quickRetry, clock: ContinuousClock())
        let reading = Task { await reader.run() }
        let first = try await reader.events.nextMatching(within: .seconds(30)) { if case .fix = $0 { true } else { false } }
        if case .fix(let fix) = first { #expect(fix.mode == 3) }
        reading.cancel()
        await reading.value
    }
}
