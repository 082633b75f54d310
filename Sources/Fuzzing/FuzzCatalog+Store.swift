internal import FoundationEssentials
internal import Glibc
internal import Pairings
internal import Session
internal import Storage
internal import Store
internal import Telemetry
internal import Upload
internal import Vocabulary

extension FuzzCatalog {
    /// The store as input: a file someone else left, damaged or edited.
    /// Seeds are whole store files: the current schema with a row in every
    /// table, a store from each earlier schema, stores whose rows hold
    /// values of the wrong type or out of range, and header fields
    /// (schema version, page size, encoding) set to odd values. Each input
    /// is opened as the read-only commands open it and read as they read it;
    /// refusing it is fine, trapping is not.
    static var store: FuzzTarget {
        let scratch = StoreScratch()
        let seeds = scratch.seeds()
        return FuzzTarget(name: "store", seeds: seeds.valid + seeds.damaged, validSeeds: seeds.valid.count, costPerInput: 10) { input in scratch.read(input) }
    }
}

/// A private directory for the stores under test, one file rewritten per input.
private final class StoreScratch: Sendable {
    let directory: String
    var path: String { directory + "/waymark.db" }

    init() {
        var template = Array("/tmp/waymark-fuzz-store-XXXXXX".utf8CString)
        directory = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
    }

    deinit {
        for suffix in ["", "-wal", "-shm"] { unlink(path + suffix) }
        rmdir(directory)
    }

    func write(_ bytes: [UInt8]) {
        for suffix in ["", "-wal", "-shm"] { unlink(path + suffix) }
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return }
        _ = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        close(fd)
    }

    func bytes() -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return [] }
        defer { close(fd) }
        var result: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            guard count > 0 else { return result }
            result += buffer[..<count]
        }
    }

    /// Opens `input` as a read-only command does and reads all it would.
    func read(_ input: [UInt8]) -> Bool {
        write(input)
        guard let store = try? GatewayStore(path: path, create: false) else { return false }
        var readAll = true
        func attempt(_ body: () throws -> Void) { do { try body() } catch { readAll = false } }
        let recordings = RecordingStore(database: store.database)
        attempt { _ = try store.deviceID }
        attempt { _ = try PairingStore(database: store.database).all() }
        attempt { _ = try recordings.intent }
        attempt { _ = try recordings.heartbeat }
        attempt {
            for trip in try recordings.trips().suffix(3) {
                _ = try recordings.points(of: trip.id)
                _ = try recordings.readings(of: trip.id)
                _ = try TripReport.gather(store, tripID: trip.id, beaconLostTimeout: 120, beaconInterval: 10)
            }
        }
        attempt { _ = try Outbox(database: store.database).status() }
        attempt { _ = try Outbox(database: store.database).oldest(count: 50, bytes: 1 << 20) }
        attempt { _ = try store.events(from: -.infinity, to: .infinity) }
        attempt { _ = try store.radioNeedsPowerCycle() }
        attempt { _ = try SessionStore(database: store.database).load() }
        attempt { _ = try SessionStore(database: store.database).settings() }
        return readAll
    }

    /// Whole store files to mutate: stores of every schema, then damaged ones.
    func seeds() -> (valid: [[UInt8]], damaged: [[UInt8]]) {
        var seeds: [[UInt8]] = []
        // A store from each earlier schema.
        for version in 1..<GatewayStore.migrations.count {
            write([])
            unlink(path)
            guard let database = try? Database(path: path, migrations: Array(GatewayStore.migrations.prefix(version))) else { continue }
            try? database.checkpoint()
            seeds.append(bytes())
        }
        // The current schema, a row in every table.
        unlink(path)
        guard let store = try? GatewayStore(path: path) else { return (seeds, []) }
        try? fill(store)
        try? store.checkpoint()
        let full = bytes()
        seeds.append(full)
        let valid = seeds
        seeds = []
        // Rows of the wrong type or out of range, one kind at a time.
        for change in Self.wrongRows {
            write(full)
            guard let database = try? Database(path: path, migrations: GatewayStore.migrations) else { continue }
            _ = try? database.write { try $0.run(change) }
            try? database.checkpoint()
            seeds.append(bytes())
        }
        // Header fields (big-endian, at their offsets): the schema version, the page size, the text encoding.
        for (offset, values) in [(60, [-1, 0, 5, 12, 99, Int(Int32.max), Int(Int32.min)]), (16, [0, 1, 512, 65_535]), (56, [0, 2, 3, 9])] {
            for value in values {
                var bytes = full
                let width = offset == 16 ? 2 : 4
                guard bytes.count >= offset + width else { continue }
                for index in 0..<width { bytes[offset + index] = UInt8(truncatingIfNeeded: value >> (8 * (width - 1 - index))) }
                seeds.append(bytes)
            }
        }
        return (valid, seeds)
    }

    private func fill(_ store: GatewayStore) throws {
        try PairingStore(database: store.database).pair(identity: .iBeacon(uuid: "e2c56db5-dffb-48d2-b060-d0f5a71096e0", major: 1, minor: 2),
                                                        role: .vehicle, label: "car", bindkey: nil)
        try PairingStore(database: store.database).pair(identity: .address(of: BluetoothAddress(value: 0xC0FF_EE00_0001)), role: .sensor,
                                                        label: "tag", bindkey: String(repeating: "ab", count: 16))
        let recordings = RecordingStore(database: store.database)
        try recordings.setIntent(.armed)
        try recordings.tripStarted("trip-1", at: 1_796_000_000)
        var fix = Fix()
        (fix.mode, fix.lat, fix.lon, fix.altMSL, fix.speed) = (3, 48.2, 8.4, 700, 13.9)
        let samples = (0..<4).map { Sample(time: 1_796_000_000 + Double($0), tripID: "trip-1", payload: .fix(fix)) } + [
            Sample(time: 1_796_000_000, tripID: "trip-1", payload: .beacon(rssi: -60)),
            Sample(time: 1_796_000_001, tripID: "trip-1", payload: .event(Event(.tripStarted, [.tripID: "trip-1"]))),
        ]
        _ = try Outbox(database: store.database).append(samples) { connection, seqs in recordings.track(samples, seqs: seqs, on: connection) }
        try recordings.tripEnded("trip-1", at: 1_796_000_004, reason: "beaconLost")
        try store.record(Event(.radioNeedsPowerCycle, [.reason: "fuzz"]), at: Date(timeIntervalSince1970: 1_796_000_005))
        try store.database.write { try $0.run("INSERT OR REPLACE INTO remote_settings (id, json, fetched_at) VALUES (1, ?, ?)", [.text(#"{"settings":{"gap_threshold_s":120},"commands":[]}"#), .real(1_796_000_006)]) }
    }

    /// One change each: text where numbers go, blobs, NULL, huge and
    /// negative numbers, NaN-like reals, unknown enum texts, long strings.
    static let wrongRows = [
        "UPDATE pairing SET role = 'stranger'", "UPDATE pairing SET identity = X'00FF'", "UPDATE pairing SET label = zeroblob(100000)",
        "UPDATE pairing SET id = -9223372036854775808", "UPDATE pairing SET identity = 'ibeacon:zz:99999999999:-1'",
        "UPDATE trip SET start = 'soon'", "UPDATE trip SET start = 1e308, end = -1e308", "UPDATE trip SET end = X'DEADBEEF'",
        "UPDATE trip SET end_reason = NULL", "UPDATE trip SET id = NULL", "UPDATE trip_point SET lat = 'north', lon = 1e308",
        "UPDATE trip_point SET time = NULL", "UPDATE outbox SET fields = X'FF00'", "UPDATE outbox SET kind = 'unknown'",
        "UPDATE outbox SET bytes = -5", "UPDATE outbox SET time = 'x'", "UPDATE outbox SET seq = 9223372036854775807",
        "UPDATE outbox SET time_source = 'sundial'", "UPDATE event SET detail = '{\"trip_id\":['", "UPDATE event SET kind = 'x', time = 'y'",
        "UPDATE meta SET value = X'00' WHERE key = 'device_id'", "UPDATE meta SET value = '-1' WHERE key = 'intent'",
        "INSERT INTO meta (key, value) VALUES ('intent', 'sideways') ON CONFLICT (key) DO UPDATE SET value = 'sideways'",
        "INSERT INTO meta (key, value) VALUES ('heartbeat', '{\"wall\":\"x\"}') ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        "UPDATE remote_settings SET json = '{\"settings\":{\"gap_threshold_s\":1e999}}'", "DELETE FROM schema_compat",
        "UPDATE schema_compat SET oldest_reader = -3", "UPDATE schema_compat SET oldest_reader = 'x'", "DROP TABLE trip_reading",
    ]
}
