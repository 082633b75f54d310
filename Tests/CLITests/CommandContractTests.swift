import Basics
@testable import CLI
import Command
import Foundation
import Fuzzing
import Pairings
import PeerHarness
@testable import Run
import Storage
@testable import Store
import Testing
import Vocabulary

/// Every byte a command meets is input, and what it prints is a contract:
/// stores of any value, output that cannot be written, `--out` paths that
/// are not files, labels and identities from a user, read-only commands.
@Suite(.serialized)
struct CommandContractTests {
    /// The manual's exit-code table (docs/commands.md).
    static let documented: Set<Int32> = [0, 1, 10, 11, 12, 13, 14, 64, 65, 69, 70, 73, 74, 77, 78]

    /// A store with a vehicle beacon and one trip of three points.
    static func seededStore(_ work: TemporaryDirectory) throws -> String {
        let data = work.file("data")
        let store = try GatewayStore(path: data + "/waymark.db")
        try PairingStore(database: store.database).pair(identity: .iBeacon(uuid: "e2c56db5-dffb-48d2-b060-d0f5a71096e0", major: 1, minor: 2),
                                                        role: .vehicle, label: "car", bindkey: nil)
        let recordings = RecordingStore(database: store.database)
        try recordings.tripStarted("trip-1", at: 1_796_000_000)
        try recordings.addPoints((0..<3).map { TripPoint(tripID: "trip-1", time: 1_796_000_000 + Double($0), lat: 48.2 + Double($0) * 1e-4, lon: 8.4) })
        try recordings.tripEnded("trip-1", at: 1_796_000_003, reason: "beaconLost")
        try store.record(Event(.tripStarted, [.tripID: "trip-1"]), at: Date(timeIntervalSince1970: 1_796_000_000))
        return data
    }

    /// Runs SQL on the store with Debian's sqlite3, as a user would.
    static func sqlite3(_ path: String, _ sql: String, in work: TemporaryDirectory) throws {
        let shell = try ChildProcess("sqlite3", [path, sql], aptPackage: "sqlite3", logPath: work.file("sqlite3-\(UUID().uuidString).log"))
        #expect(try shell.wait(timeout: 30) == 0, "\(shell.output)")
    }

    /// `waymark ARGS > /dev/full`, through sh: the exit code and stderr.
    static func runToFullDisk(_ arguments: [String], in work: TemporaryDirectory) throws -> (status: Int32, output: String) {
        let quoted = ([try WaymarkBinary.path] + arguments).map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
        let shell = try ChildProcess("sh", ["-c", "exec \(quoted) > /dev/full"], aptPackage: "dash", logPath: work.file("full-\(UUID().uuidString).log"))
        return (try shell.wait(timeout: 60), shell.output)
    }

    @Test(arguments: [
        ["version"], ["--help"], ["trips"], ["trips", "--json"], ["beacons"], ["beacons", "--json"], ["config"], ["config", "--defaults"],
        ["manual"], ["completion"], ["status"], ["status", "--json"], ["queue"], ["queue", "--json"], ["events"], ["whoami", "--json"],
        ["export", "--trip", "trip-1"], ["export", "--trip", "trip-1", "--format", "csv"], ["report"], ["report", "--trip", "trip-1", "--out", "-"],
        ["decode", "--manufacturer-data", "0x004C:0215e2c56db5dffb48d2b060d0f5a71096e000640000c5"], ["pair", "--help"],
        ["pair", "--address", "AA:BB:CC:DD:EE:01", "--role", "sensor"], ["unpair", "1"], ["start"], ["stop"], ["health", "--json"],
        ["config", "--require-backend"], ["trips", "--json"], ["events", "--json"],
    ])
    func aCommandWhoseOutputCannotBeWrittenSaysSoAndExits74(arguments: [String]) throws {
        let work = try TemporaryDirectory()
        defer { work.remove() }
        let data = try Self.seededStore(work)
        let result = try Self.runToFullDisk(["--config", "/dev/null", "--data-dir", data] + arguments, in: work)
        #expect(result.status == 74, "\(arguments): \(result.output)")
        #expect(result.output.contains("cannot write to standard output: "), "\(result.output)")
    }

    /// A config file's escape sequence reaches the terminal shown, never obeyed: one line, no ESC.
    @Test func aConfigErrorShowsTheFilesControlCharactersInsteadOfSendingThem() throws {
        let work = try TemporaryDirectory()
        defer { work.remove() }
        try "[Recording]\nBeacon\u{1B}]0;owned\u{07}LostTimeout = 1s\n".write(toFile: work.file("w.conf"), atomically: true, encoding: .utf8)
        let result = try WaymarkBinary.run(["--config", work.file("w.conf"), "config"], in: work)
        #expect(result.status == 78)
        #expect(!result.output.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 }, "\(result.output.debugDescription)")
        #expect(result.output.contains("\\u{1b}]0;owned\\u{7}") && result.output.split(separator: "\n").count == 1, "\(result.output)")
    }

    @Test func gpsDecodingAnNMEAFileToAFullDiskExits74() throws {
        let work = try TemporaryDirectory()
        defer { work.remove() }
        let capture = Checkout.path("Tests/LocationTests/gpsd/nl2008u.log")
        let result = try Self.runToFullDisk(["--config", "/dev/null", "gps", "--nmea", capture], in: work)
        #expect(result.status == 74, "\(result.output)")
    }

    @Test(arguments: [
        ("pragma user_version = -1", "schema version is -1"),
        ("pragma user_version = 0", "says schema version 0"),
        ("pragma user_version = 5", "does not match its tables"),
        ("pragma user_version = -2147483648", "schema version is -2147483648"),
    ])
    func aStoreWhoseSchemaVersionItsTablesContradictIsRefusedNeverTrappedOn(sql: String, reason: String) throws {
        let work = try TemporaryDirectory()
        defer { work.remove() }
        let data = try Self.seededStore(work)
        try Self.sqlite3(data + "/waymark.db", sql, in: work)
        for command in [["beacons"], ["trips"], ["status"], ["events"], ["queue"], ["whoami"], ["export", "--trip", "trip-1"], ["report"]] {
            let result = try WaymarkBinary.run(["--config", "/dev/null", "--data-dir", data] + command, in: work)
            #expect(result.status == 74, "\(command): \(result.output)")
            #expect(result.output.contains("is damaged") && result.output.contains(reason), "\(command): \(result.output)")
            #expect(result.output.split(separator: "\n").count == 1, "one line: \(result.output)")
        }
        let files = try FileManager.default.contentsOfDirectory(atPath: data)
        #expect(!files.contains { $0.contains("corrupt") }, "read-only commands move nothing: \(files)")
        // A command that writes moves it aside, kept, and starts afresh.
        let start = try WaymarkBinary.run(["--config", "/dev/null", "--data-dir", data, "start"], in: work)
        #expect(start.status == 0 && start.output.contains("moved it to"), "\(start.output)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: data).contains { $0.hasPrefix("waymark.db.corrupt-") })
    }

    @Test func readOnlyCommandsNeitherMoveNorFillAStoreTheyCannotUse() throws {
        let work = try TemporaryDirectory()
        defer { work.remove() }
        let data = work.file("data")
        mkdir(data, 0o700)
        let garbage = Data("not a database, just some bytes of a file someone put here".utf8)
        for contents in [garbage, Data()] {
            #expect(FileManager.default.createFile(atPath: data + "/waymark.db", contents: contents, attributes: [.posixPermissions: 0o600]))
            for command in ["beacons", "trips", "status", "queue", "events", "whoami"] {
                let result = try WaymarkBinary.run(["--config", "/dev/null", "--data-dir", data, command], in: work)
                #expect(result.status == 74, "\(command): \(result.output)")
            }
            #expect(try Data(contentsOf: URL(fileURLWithPath: data + "/waymark.db")) == contents, "left as it was")
            #expect(try FileManager.default.contentsOfDirectory(atPath: data) == ["waymark.db"])
        }
    }

    @Test func aDataDirectoryWhoseParentIsMissingIsNotCreated() throws {
        let work = try TemporaryDirectory()
        defer { work.remove() }
        let result = try WaymarkBinary.run(["--config", "/dev/null", "--data-dir", work.file("typo/x/y"), "start"], in: work)
        #expect(result.status == 73, "\(result.output)")
        #expect(result.output.contains("typo/x/y") && result.output.contains("No such file or directory"), "\(result.output)")
        #expect(!FileManager.default.fileExists(atPath: work.file("typo")))
    }

    /// `--out X --force` replaces a regular file only; anything else at X is left as it was.
    @Test func outReplacesOnlyARegularFile() throws {
        let work = try TemporaryDirectory()
        defer { work.remove() }
        let data = try Self.seededStore(work)
        #expect(mkfifo(work.file("fifo"), 0o600) == 0)
        #expect(mknod(work.file("null"), S_IFCHR | 0o666, dev_t(0x103)) == 0, "mknod: the suite runs as root, as CI does (glibc encodes 1:3, /dev/null, as 0x103)")
        #expect(FileManager.default.createFile(atPath: work.file("target"), contents: Data("mine".utf8)))
        symlink(work.file("target"), work.file("link"))
        mkdir(work.file("directory"), 0o700)
        let kinds = [("fifo", "a FIFO"), ("null", "a character device"), ("link", "a symbolic link"), ("directory", "a directory")]
        for command in [["export", "--trip", "trip-1"], ["report"]] {
            for (name, kind) in kinds {
                let result = try WaymarkBinary.run(["--config", "/dev/null", "--data-dir", data] + command + ["--out", work.file(name), "--force"], in: work)
                #expect(result.status == 73, "\(command) \(name): \(result.output)")
                #expect(result.output.contains("is \(kind), not a regular file"), "\(result.output)")
            }
        }
        var info = stat()
        #expect(lstat(work.file("null"), &info) == 0 && info.st_mode & S_IFMT == S_IFCHR)
        #expect(lstat(work.file("fifo"), &info) == 0 && info.st_mode & S_IFMT == S_IFIFO)
        #expect(lstat(work.file("link"), &info) == 0 && info.st_mode & S_IFMT == S_IFLNK)
        #expect(try String(contentsOfFile: work.file("target"), encoding: .utf8) == "mine")
        let file = try WaymarkBinary.run(["--config", "/dev/null", "--data-dir", data, "export", "--trip", "trip-1", "--out", work.file("target"), "--force"], in: work)
        #expect(file.status == 0, "a regular file is replaced: \(file.output)")
        #expect(try String(contentsOfFile: work.file("target"), encoding: .utf8).hasPrefix("<?xml"))
    }

    @Test(arguments: [
        (["--ibeacon", "ZZC56DB5-DFFB-48D2-B060-D0F5A71096E0:1:2"], "--ibeacon must be UUID:MAJOR:MINOR"),
        (["--ibeacon", "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0:1:65536"], "--ibeacon must be UUID:MAJOR:MINOR"),
        (["--ibeacon", "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0:+1:2"], "--ibeacon must be UUID:MAJOR:MINOR"),
        (["--ibeacon", "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0:1:2", "--address", "AA:BB:CC:DD:EE:FF"], "give one identity, not --ibeacon and --address"),
        (["--eddystone", "00112233445566778899:AABBCCDDEEFF", "--ibeacon", "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0:1:2"], "give one identity"),
        (["--address", "AA:BB:CC:DD:EE:FF", "--strongest"], "--strongest chooses by scanning"),
        (["--address", "AA:BB:CC:DD:EE:FF", "--label", "car\u{1B}]0;owned\u{07}"], "--label holds a control character (car\\u{1b}]0;owned\\u{7})"),
        (["--address", "AA:BB:CC:DD:EE:FF", "--label", "two\nlines"], "--label holds a control character (two\\nlines)"),
        (["--address", "AA:BB:CC:DD:EE:FF", "--label", String(repeating: "x", count: 65)], "--label has 65 characters; at most 64"),
        (["--address", "AA:BB:CC:DD:EE:FF", "--label", ""], "--label is empty"),
    ])
    func anIdentityOrLabelThatCanNeverBeShownOrMatchedIsRefusedAtTheDoor(arguments: [String], message: String) throws {
        let work = try TemporaryDirectory()
        defer { work.remove() }
        let result = try WaymarkBinary.run(["--config", "/dev/null", "--data-dir", work.file("data"), "pair"] + arguments, in: work)
        #expect(result.status == 64, "\(arguments): \(result.output)")
        #expect(result.output.contains(message), "\(result.output)")
        #expect(!FileManager.default.fileExists(atPath: work.file("data")), "nothing stored")
    }

    /// A label an older Waymark stored raw is shown escaped: one record per line, no terminal control.
    @Test func aStoredLabelReachesTheTerminalEscapedOneRecordPerLine() throws {
        let work = try TemporaryDirectory()
        defer { work.remove() }
        let data = try Self.seededStore(work)
        try Self.sqlite3(data + "/waymark.db", "UPDATE pairing SET label = 'car\u{1B}[2J\ttwo\nthree\r'", in: work)
        let result = try WaymarkBinary.run(["--config", "/dev/null", "--data-dir", data, "beacons"], in: work)
        #expect(result.status == 0)
        #expect(result.output == "#1\tvehicle\tibeacon:e2c56db5-dffb-48d2-b060-d0f5a71096e0:1:2\tcar\\u{1b}[2J\\ttwo\\nthree\\r\n", "\(result.output.debugDescription)")
    }

    /// A new pairing never takes the id of one replaced: sensors' samples carry it.
    @Test func aReplacedVehiclePairingsIdIsNotReused() throws {
        let work = try TemporaryDirectory()
        defer { work.remove() }
        let data = work.file("data")
        for minor in 1...3 {
            let result = try WaymarkBinary.run(["--config", "/dev/null", "--data-dir", data, "pair", "--ibeacon", "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0:1:\(minor)"], in: work)
            #expect(result.output.contains("paired vehicle #\(minor):"), "\(result.output)")
        }
    }

    /// The last pairing id is read from the store: the largest there is is refused, never added to.
    @Test func aStoredLastPairingIdThatCannotGrowIsRefusedNotTrappedOn() throws {
        let work = try TemporaryDirectory()
        defer { work.remove() }
        let data = try Self.seededStore(work)
        try Self.sqlite3(data + "/waymark.db", "INSERT INTO meta (key, value) VALUES ('last_pairing_id', '9223372036854775807') ON CONFLICT (key) DO UPDATE SET value = excluded.value", in: work)
        let result = try WaymarkBinary.run(["--config", "/dev/null", "--data-dir", data, "pair", "--address", "AA:BB:CC:DD:EE:02", "--role", "sensor"], in: work)
        #expect(result.status == 74, "\(result.output)")
        #expect(result.output.contains("no id is left for a new pairing"), "\(result.output)")
    }

    @Test func bareWaymarkPrintsItsUsageToStderrAndExits64() throws {
        let work = try TemporaryDirectory()
        defer { work.remove() }
        let shell = try ChildProcess("sh", ["-c", "exec '\(try WaymarkBinary.path)' 2>/dev/null"], aptPackage: "dash", logPath: work.file("bare.log"))
        #expect(try shell.wait(timeout: 30) == 64)
        #expect(shell.output.isEmpty, "nothing on stdout: \(shell.output)")
    }

    /// Each failing store check of `doctor` with the fix for its own cause,
    /// never "moved aside at the next start" for a store that is not damaged.
    @Test func eachFailingStoreCheckOfDoctorNamesTheFixForItsCause() throws {
        let work = try TemporaryDirectory()
        defer { work.remove() }
        let real = try Self.seededStore(work)
        symlink(real, work.file("linked"))
        mkdir(work.file("open"), 0o700)
        chmod(work.file("open"), 0o777)
        #expect(FileManager.default.createFile(atPath: work.file("afile"), contents: Data()))
        let (newerWork, damagedWork) = (try TemporaryDirectory(), try TemporaryDirectory())
        defer { newerWork.remove(); damagedWork.remove() }
        let newer = try Self.seededStore(newerWork)
        try Self.sqlite3(newer + "/waymark.db", "pragma user_version = 99; UPDATE schema_compat SET oldest_reader = 50", in: work)
        let damaged = try Self.seededStore(damagedWork)
        try Self.sqlite3(damaged + "/waymark.db", "pragma user_version = 3", in: work)

        let cases: [(directory: String, failing: String, fix: String)] = [
            (work.file("linked"), "store/writable", "never follows a symbolic link"),
            (work.file("open"), "store/permissions", "chmod 700 \(work.file("open"))"),
            (work.file("afile"), "store/writable", "is not a directory"),
            (newer, "store/integrity", "install the newer Waymark again"),
            (damaged, "store/integrity", "waymark start moves the damaged store aside"),
        ]
        for (directory, failing, fix) in cases {
            let invocation = try Invocation(parsing: ["--data-dir", directory, "doctor"], commands: WaymarkCLI.commands)
            let checks = DoctorCheck.tree(Doctor.store(invocation))
            let failed = checks.filter { $0.status == .fail }
            #expect(failed.map(\.id) == [failing], "\(directory): \(checks.map { "\($0.id) \($0.status) \($0.detail)" })")
            #expect(failed.first?.fix?.contains(fix) == true, "\(directory): \(failed.first?.fix ?? "no fix")")
        }
    }

    @Test func aFileWithoutOneNMEASentenceIsBadDataAndEveryLineSkippedIsCounted() throws {
        let work = try TemporaryDirectory()
        defer { work.remove() }
        try "plain text\nmore text\n$GPBAD,1*00\n".write(toFile: work.file("text"), atomically: true, encoding: .utf8)
        let result = try WaymarkBinary.run(["--config", "/dev/null", "gps", "--nmea", work.file("text")], in: work)
        #expect(result.status == 65, "\(result.output)")
        #expect(result.output.contains("skipped 3 lines that are not NMEA sentences") && result.output.contains("holds no NMEA sentence"), "\(result.output)")
    }

    /// A file that cannot be read is an I/O problem for every command that reads one (74), not bad data (65).
    @Test func aMissingInputFileExits74ForGpsAndReplayAlike() throws {
        let work = try TemporaryDirectory()
        defer { work.remove() }
        for command in [["gps", "--nmea", work.file("missing")], ["replay", work.file("missing"), "--data-dir", work.file("replayed")]] {
            let result = try WaymarkBinary.run(["--config", "/dev/null"] + command, in: work)
            #expect(result.status == 74, "\(command): \(result.output)")
        }
    }

    @Test func recordRefusesAnExistingFileWithoutClaimingToGoOn() throws {
        let work = try TemporaryDirectory()
        defer { work.remove() }
        #expect(FileManager.default.createFile(atPath: work.file("taken"), contents: Data("mine".utf8)))
        let result = try WaymarkBinary.run(["--config", "/dev/null", "--data-dir", work.file("data"), "record", "--out", work.file("taken"), "--duration", "1"], in: work)
        #expect(result.status == 73, "\(result.output)")
        #expect(result.output.contains("never replaces a file") && !result.output.contains("goes on"), "\(result.output)")
        #expect(try String(contentsOfFile: work.file("taken"), encoding: .utf8) == "mine")
    }

    @Test func aRequiredOptionShowsWithoutBracketsInItsUsage() throws {
        let work = try TemporaryDirectory()
        defer { work.remove() }
        let export = try WaymarkBinary.run(["export", "--help"], in: work)
        #expect(export.output.hasPrefix("usage: waymark [--config FILE] [--data-dir DIR] export --trip ID [--format"), "\(export.output)")
    }

    /// Mutated stores (bytes flipped, cut, spliced) under every command that
    /// reads one: each ends with a code from the manual's table, never a
    /// signal. (`make fuzz` opens a million in-process; this is the real binary.)
    @Test func everyReadingCommandEndsWithADocumentedCodeOnAMutatedStore() throws {
        let work = try TemporaryDirectory()
        defer { work.remove() }
        let data = try Self.seededStore(work)
        try GatewayStore(path: data + "/waymark.db").checkpoint()
        let original = try [UInt8](Data(contentsOf: URL(fileURLWithPath: data + "/waymark.db")))
        var random = SplitMix64(seed: 0x57_4D_53_54)
        let mutator = Mutator()
        let commands = [["beacons"], ["trips", "--json"], ["status", "--json"], ["queue"], ["events"], ["whoami"], ["export", "--trip", "trip-1"], ["report"]]
        var codes: [Int32: Int] = [:]
        for round in 0..<24 {
            let mutated = mutator.mutate(original, &random)
            for command in commands {
                for suffix in ["", "-wal", "-shm"] { unlink(data + "/waymark.db" + suffix) }
                try Data(mutated).write(to: URL(fileURLWithPath: data + "/waymark.db"))
                chmod(data + "/waymark.db", 0o600)
                let result = try WaymarkBinary.run(["--config", "/dev/null", "--data-dir", data] + command, in: work)
                codes[result.status, default: 0] += 1
                #expect(Self.documented.contains(result.status), "round \(round), \(command): exit \(result.status): \(result.output.suffix(400))")
            }
        }
        #expect(codes.values.reduce(0, +) == 24 * commands.count, "\(codes)")
    }
}
