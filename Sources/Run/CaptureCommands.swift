import Basics
import BlueZ
import CLI
import Capture
import Command
import Config
import Daemon
import FoundationEssentials
internal import Glibc
import Location
import Logging
import Pairings
import Radio
import Recorder
import Replay
import Session
import Store
import Telemetry
import Vocabulary

/// `waymark record` writes a capture; `waymark replay` drives the pipeline from one.
enum CaptureCommands {
    static let specs: [CommandSpec] = [
        CommandSpec(name: "record", summary: "Capture every advert and location line heard to a file, for replay.",
                    details: "The file is new and 0600; it is written until the duration passes or SIGINT, for replay.", options: [
            OptionSpec(name: "--out", valueName: "FILE", help: "the capture file to create (mode 0600; it must not exist)", required: true),
            OptionSpec(name: "--duration", valueName: "D", help: "stop after D (30s, 10min); default: until SIGINT"),
        ], run: record),
        CommandSpec(name: "replay", summary: "Replay a capture through trip detection and the queue, on a virtual clock.",
                    details: "Into the store in --data-dir (never the gateway's own), it prints the trips and samples the capture made. Nothing is uploaded unless --upload asks for it.", arguments: "FILE", options: [
            OptionSpec(name: "--fast", help: "as fast as possible (the default)"),
            OptionSpec(name: "--speed", valueName: "N", help: "N times real time"),
            OptionSpec(name: "--json", help: "print the outcome as one JSON object"),
            OptionSpec(name: "--upload", help: "allow a store with a logged-in session: its daemon will upload what replay queues"),
        ], run: replay),
    ]

    // MARK: replay

    static func replay(_ invocation: Invocation) async -> ExitCode {
        guard let path = invocation.arguments.first, invocation.arguments.count == 1 else {
            Log.error("replay: give one capture FILE")
            return .usage
        }
        // Replayed trips and samples go into a store of their own, never the gateway's.
        guard invocation.dataDirectory != Invocation.defaultDataDirectory else {
            Log.error("replay: give --data-dir DIR, a directory for the replayed store (not the gateway's own \(Invocation.defaultDataDirectory))")
            return .usage
        }
        var pace = Replay.Pace.fast
        if let text = invocation.values["--speed"] {
            guard let speed = Double(text), speed.isFinite, speed > 0, speed <= 10_000 else {
                Log.error("replay: --speed must be a number between 0 and 10000, got \(text.debugDescription)")
                return .usage
            }
            pace = .speed(speed)
        }
        let reader: CaptureReader
        do { reader = try CaptureReader(path: path) } catch {
            Log.error("replay: \(error)")
            // A file that cannot be read is an I/O problem, as for gps --nmea; one that is not a capture, bad data.
            guard case .file(_, _, let code, _) = error else { return .dataError }
            return code == EACCES ? .noPermission : .ioError
        }
        // The drive's own settings, unless --config names others.
        let configuration: Configuration
        do {
            configuration = invocation.configExplicit ? try Configuration.load(path: invocation.configPath, explicit: true)
                : try Configuration.parse(reader.header.config, file: "\(path) (its header)")
        } catch {
            Log.error(error.description)
            return .config
        }
        let store: GatewayStore
        switch StoreAccess.open(invocation, for: "replay") {
        case .store(let opened): store = opened
        case .absent: return .software
        case .failed(let code): return code
        }
        // A logged-in store would upload what replay queues: replay goes into a directory of its own.
        let session: PersistedSession?
        do { session = try SessionStore(database: store.database).load() } catch {
            Log.error("replay: cannot read the session in \(invocation.storePath) (\(error)), so cannot tell whether a daemon would upload the replayed samples")
            return .ioError
        }
        if !invocation.flag("--upload"), session != nil {
            Log.error("replay: \(invocation.dataDirectory) holds a logged-in session, whose daemon would upload the replayed samples; give --data-dir a new directory, or --upload")
            return .usage
        }
        var pairings = BestEffort.read("the pairings of \(invocation.storePath); using the capture's", or: []) { try PairingStore(database: store.database).all() }
        if pairings.isEmpty {
            do {
                pairings = try JSONDecoder().decode([Pairing].self, from: Data(reader.header.pairings.utf8))
            } catch {
                Log.warning("replay: the capture's header has no readable pairings (\(error)); nothing will be matched unless \(invocation.dataDirectory) has pairings")
            }
            if pairings.contains(where: { $0.identity.advertiserAddress != nil || $0.isIRK }) {
                Log.notice("replay: pairings from the capture have no bindkeys or IRKs; pair them in \(invocation.dataDirectory) to decrypt and resolve")
            }
        }
        let started = ContinuousClock.now
        let outcome: ReplayOutcome
        do {
            outcome = try await Replay(store: store, configuration: configuration, pairings: pairings).run(reader, pace: pace)
        } catch {
            Log.error("replay: \(error)")
            return .ioError
        }
        let took = started.duration(to: .now)
        if case .cut(let records, let byte) = outcome.stop {
            Log.warning("replay: \(path) is cut after record \(records) (byte \(byte)); replayed up to there")
        } else if case .damaged(let records, let byte, let reason) = outcome.stop {
            Log.warning("replay: \(path) is damaged after record \(records) (byte \(byte)): \(reason); replayed up to there")
        }
        if invocation.flag("--json") {
            JSONEncoder.snakeCase.printLine(ReplaySummary(outcome, seconds: took.seconds))
        } else {
            print(ReplaySummary(outcome, seconds: took.seconds).text)
        }
        return .ok
    }

    // MARK: record

    static func record(_ invocation: Invocation) async -> ExitCode {
        guard let configuration = Configuration.load(for: invocation) else { return .config }
        guard let out = invocation.values["--out"] else {
            Log.error("record: give --out FILE")
            return .usage
        }
        var duration: Duration?
        if let text = invocation.values["--duration"] {
            guard let value = ConfigValue.duration(text), value > .zero else {
                Log.error("record: --duration must be a duration such as 30s or 10min, got \(text.debugDescription)")
                return .usage
            }
            duration = value
        }
        let store: GatewayStore
        switch StoreAccess.open(invocation, for: "record") {
        case .store(let opened): store = opened
        case .absent: return .software
        case .failed(let code): return code
        }
        guard let capture = CaptureTap.open(.file(out), configPath: invocation.configPath, store: store,
                                            failing: "record: %@ (a capture never replaces a file)") else { return .cannotCreate }
        let session: ScanSession
        // A capture is of the radio: what this machine's controller hears, in the mode it picks.
        do { session = try await ScanSession.start(configuration, besideDaemon: false) } catch {
            Log.error("\(error)")
            capture.close()
            return .unavailable
        }
        let adapter = await session.scanner?.adapterName
        let reader = LocationReader(source: configuration.location.source, options: configuration.location.readerOptions, clock: ContinuousClock()) { trace in
            switch trace {
            case .line(let line, let gpsd, _): capture.append(.location(LocationLine(speaks: gpsd ? .gpsd : .nmea, bytes: line)))
            case .closed(_, let afterLastLine): capture.state(.epochClosed(afterLastLine: afterLastLine.seconds))
            }
        }
        capture.state(.running(true))
        if let reception = await session.scanner?.reception { capture.state(.scanMode(reception.mode.rawValue)) }
        var adverts = 0
        // The reader's lines go to the capture as they come; its events are not needed.
        await reader.reading { _ in
            await session.forEachSighting(for: duration) { sighting in
                capture.advert(sighting, adapter: adapter)
                adverts += 1
            }
        }
        capture.state(.running(false))
        await session.stop()
        capture.close()
        Log.notice("record: \(adverts) adverts captured to \(out)")
        return .ok
    }
}
