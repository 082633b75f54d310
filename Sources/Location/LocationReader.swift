public import Telemetry
internal import Basics
internal import Dispatch
internal import Glibc
internal import Logging

/// Reads fixes from the configured source, gpsd (TCP or unix socket) or an
/// NMEA receiver (tty, FIFO or file), and keeps reading through every fault:
/// it reconnects with capped, jittered backoff, and a no-data watchdog catches
/// a half-open socket or a receiver gone quiet. Timers run on the injected
/// clock, so tests drive them without sleeping.
///
/// `run()` reads until its task is cancelled, then finishes `events`; a
/// reader runs once. `reading(_:)` runs it beside a consumer.
///
/// Events: one `.fix` per epoch, and `.state` whenever what the source can
/// give changes (unreachable, no device, no fix, fix).
public actor LocationReader<C: Clock> where C.Duration == Duration {
    public nonisolated let events: AsyncStream<LocationEvent>
    private let sink: AsyncStream<LocationEvent>.Continuation
    public nonisolated let source: LocationSource
    let options: LocationOptions
    let clock: C

    /// Set by every chunk; cleared by the watchdog each period.
    private var heard = false
    /// Closes an epoch the receiver has stopped adding to: a run of chunks
    /// moves it on, and it rings once they stop.
    private let settle: Alarm<C>
    private var settleDeadline: C.Instant?
    private var published: LocationState?
    private var devices: Set<String> = []
    private var lastMode = 0
    private var gpsd = GPSDFixAssembler()
    private let decoder = GPSDDecoder()
    private var nmea = NMEAFixAssembler()
    public private(set) var counters = Counters()
    /// Every line once parsed, with the fixes it closed, and every epoch
    /// closed without a line, in order, before the fixes are queued on
    /// `events` (for a capture and the recorder).
    private let onTrace: (@Sendable (LocationTrace) -> Void)?
    /// The fixes the line being handled closed, for its trace.
    private var closedByLine: [Fix]?

    public struct Counters: Sendable, Equatable {
        /// Connections (or device opens) made.
        public var connections = 0
        /// Lines that were not a report or a valid sentence.
        public var rejectedLines = 0
        /// Connections dropped by the no-data watchdog.
        public var watchdogDrops = 0
    }

    public init(source: LocationSource, options: LocationOptions, clock: C, onTrace: (@Sendable (LocationTrace) -> Void)? = nil) {
        self.source = source
        self.onTrace = onTrace
        self.options = options
        self.clock = clock
        self.settle = Alarm(clock: clock)
        (events, sink) = AsyncStream.makeStream(of: LocationEvent.self, bufferingPolicy: .bufferingNewest(4096))
    }

    /// Reads, and each epoch settles, until the task is cancelled; then
    /// `events` finishes.
    public func run() async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.settle.run { await self.settleIfQuiet() } }
            await connectAndRead()
            group.cancelAll()
        }
        sink.finish()
    }

    /// Runs the reader while `body` consumes its events; stops it when `body` returns.
    public nonisolated func reading<T: Sendable>(_ body: (AsyncStream<LocationEvent>) async -> T) async -> T {
        await withTaskGroup(of: Void.self, returning: T.self) { group in
            group.addTask { await self.run() }
            let result = await body(events)
            group.cancelAll()
            return result
        }
    }

    private var speaksGPSD: Bool {
        if case .nmea = source { false } else { true }
    }

    private func connectAndRead() async {
        var backoff = Backoff(base: options.retryBase, cap: options.retryCap)
        while !Task.isCancelled {
            if let channel = await open() {
                counters.connections += 1
                if speaksGPSD {
                    channel.write(#"?WATCH={"enable":true,"json":true};"# + "\n")
                } else {
                    // Open, but nothing heard from the receiver yet.
                    publish(.noDevice)
                }
                await withTaskGroup(of: Void.self) { group in
                    group.addTask { await self.watch(channel) }
                    var lines = LineBuffer(limit: speaksGPSD ? 1 << 20 : NMEASentence.maximumLength)
                    for await chunk in channel.chunks {
                        heard = true
                        backoff.reset()
                        for line in lines.append(chunk) { handle(line) }
                        scheduleSettle()
                    }
                    group.cancelAll()
                }
                settleDeadline = nil
                settle.set(nil)
                channel.close()
                closeEpoch()
                devices = []
                lastMode = 0
            }
            guard !Task.isCancelled else { break }
            publish(.unreachable)
            let delay = backoff.next()
            Log.debug("location: \(source) unavailable; retrying in \(delay)")
            try? await clock.sleep(for: delay)
        }
    }

    private func open() async -> ByteChannel? {
        let source = source
        let timeout = options.connectTimeout
        let result: Result<Int32, LocationError> = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(returning: Result { () throws(LocationError) -> Int32 in try Self.descriptor(source, timeout) })
            }
        }
        switch result {
        case .success(let fd): return ByteChannel(adopting: fd)
        case .failure(let error):
            if published != .unreachable { Log.warning("location: \(error)") }
            return nil
        }
    }

    private static func descriptor(_ source: LocationSource, _ timeout: Duration) throws(LocationError) -> Int32 {
        do {
            if case .nmea(let device, let baud) = source { return try SerialPort.open(device, baud: baud) }
            return try SocketConnector.connect(to: source, timeout: timeout)
        } catch let failure as SerialPort.Failure {
            throw .device(source, failure)
        } catch let failure as SocketConnector.Failure {
            throw .connection(source, failure)
        } catch {
            throw .connection(source, .connect(errno: EIO))
        }
    }

    /// Each quiet period: first probe gpsd (it answers `?VERSION;` at once),
    /// then drop the connection. A receiver read directly cannot be probed;
    /// its silence means no device.
    private func watch(_ channel: ByteChannel) async {
        var probed = false
        while true {
            heard = false
            do { try await clock.sleep(for: options.noDataTimeout) } catch { return }
            if heard {
                probed = false
            } else if !speaksGPSD {
                closeEpoch()
                publish(.noDevice)
            } else if probed {
                Log.warning("location: no data from \(source) for \(options.noDataTimeout * 2); reconnecting")
                counters.watchdogDrops += 1
                channel.close()
                return
            } else {
                channel.write("?VERSION;\n")
                probed = true
            }
        }
    }

    private func handle(_ line: [UInt8]) {
        closedByLine = []
        if speaksGPSD { handleReport(line) } else { handleSentence(line) }
        let closed = closedByLine ?? []
        closedByLine = nil
        onTrace?(.line(line, gpsd: speaksGPSD, closed: closed))
    }

    private func handleReport(_ line: [UInt8]) {
        guard let report = try? decoder.decode(line) else {
            counters.rejectedLines += 1
            return
        }
        switch report {
        case .devices(let paths):
            devices = Set(paths)
        case .device(let path, let active):
            if active {
                devices.insert(path)
            } else {
                devices.remove(path)
                if devices.isEmpty {
                    closeEpoch()
                    lastMode = 0
                }
            }
        case .tpv(let fix, let device):
            if let device { devices.insert(device) }
            lastMode = fix.mode
            for closed in gpsd.add(fix) { deliver(closed) }
        case .sky(let used, let seen):
            gpsd.addSky(used: used, seen: seen)
            return
        case .error(let message):
            Log.warning("location: gpsd reports an error: \(message)")
            return
        case .version, .watch, .other:
            return
        }
        publish(devices.isEmpty ? .noDevice : lastMode >= 2 ? .fix : .noFix)
    }

    private func handleSentence(_ line: [UInt8]) {
        guard let sentence = try? NMEASentence(utf8: line) else {
            counters.rejectedLines += 1
            return
        }
        if let fix = nmea.add(sentence) { emit(fix) }
        if published == .unreachable || published == .noDevice || published == nil { publish(.noFix) }
    }

    /// A fix whose epoch closed: traced with the line that closed it, or on its own.
    private func deliver(_ fix: Fix, afterLastLine: Duration = .zero) {
        if closedByLine != nil {
            closedByLine?.append(fix)
        } else {
            onTrace?(.closed(fix, afterLastLine: afterLastLine))
        }
        sink.yield(.fix(fix))
    }

    private func emit(_ fix: Fix, afterLastLine: Duration = .zero) {
        lastMode = fix.mode
        deliver(fix, afterLastLine: afterLastLine)
        if !speaksGPSD { publish(fix.mode >= 2 ? .fix : .noFix) }
    }

    private func scheduleSettle() {
        guard speaksGPSD ? gpsd.isOpen : nmea.isOpen else {
            settleDeadline = nil
            return settle.set(nil)
        }
        let deadline = clock.now.advanced(by: options.epochSettle)
        settleDeadline = deadline
        settle.set(deadline)
    }

    /// The alarm rang; a chunk handled since may have moved the deadline on.
    private func settleIfQuiet() {
        guard let deadline = settleDeadline, clock.now >= deadline else { return }
        settleDeadline = nil
        closeEpoch(afterLastLine: options.epochSettle)
    }

    private func closeEpoch(afterLastLine: Duration = .zero) {
        if speaksGPSD {
            if let fix = gpsd.finish() { deliver(fix, afterLastLine: afterLastLine) }
        } else if let fix = nmea.finish() {
            emit(fix, afterLastLine: afterLastLine)
        }
    }

    private func publish(_ state: LocationState) {
        guard state != published else { return }
        published = state
        Log.info("location: \(source) \(state.rawValue)")
        sink.yield(.state(state))
    }
}
