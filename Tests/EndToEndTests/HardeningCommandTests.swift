import Config
import Foundation
import PeerHarness
import Storage
@testable import Store
import Testing
import Vocabulary

/// The command line against what someone else (or a careless root) left:
/// links, shared directories, stores of other users and versions, odd
/// config files and hostile arguments.
@Suite(.serialized)
struct HardeningCommandTests {
    static let nobody: [String] = ["--reuid=65534", "--regid=65534", "--clear-groups"]

    /// Runs `waymark` as user nobody through util-linux's setpriv.
    static func runAsNobody(_ arguments: [String], in work: TemporaryDirectory) throws -> (status: Int32, output: String) {
        let process = try ChildProcess("setpriv", nobody + [try WaymarkBinary.path] + arguments, aptPackage: "util-linux",
                                       logPath: work.file("nobody-\(UUID().uuidString).log"))
        return (try process.wait(timeout: 30), process.output)
    }

    static func mode(_ path: String) -> mode_t {
        var info = stat()
        return lstat(path, &info) == 0 ? info.st_mode & 0o7777 : 0
    }

    @Test func aStoreThatIsASymbolicLinkIsRefusedAndItsTargetLeftAlone() throws {
        let work = try TemporaryDirectory()
        defer { work.remove() }
        mkdir(work.file("data"), 0o700)
        #expect(FileManager.default.createFile(atPath: work.file("elsewhere"), contents: Data("mine".utf8), attributes: [.posixPermissions: 0o644]))
        symlink(work.file("elsewhere"), work.file("data/waymark.db"))
        for command in [["pair", "--ibeacon", "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0:1:2"], ["start"], ["status"]] {
            let result = try WaymarkBinary.run(["--data-dir", work.file("data")] + command, in: work)
            #expect(result.status == 77, "\(command): \(result.output)")
            #expect(result.output.contains("symbolic link"), "\(result.output)")
        }
        #expect(Self.mode(work.file("elsewhere")) == 0o644)
        #expect(try String(contentsOfFile: work.file("elsewhere"), encoding: .utf8) == "mine")
    }

    @Test func aSharedDataDirectoryIsRefusedNotNarrowed() throws {
        let work = try TemporaryDirectory()
        defer { work.remove() }
        mkdir(work.file("shared"), 0o755)
        chmod(work.file("shared"), 0o755)
        let result = try WaymarkBinary.run(["--data-dir", work.file("shared"), "start"], in: work)
        #expect(result.status == 77, "\(result.output)")
        #expect(result.output.contains("other users") && result.output.split(separator: "\n").count == 1, "\(result.output)")
        #expect(Self.mode(work.file("shared")) == 0o755, "left as it was")
        #expect(!FileManager.default.fileExists(atPath: work.file("shared/waymark.db")))
    }

    /// `sudo waymark start` made the store root's; the service user is told
    /// whose it is, with exit 77, and nothing is changed.
    @Test func aStoreOfAnotherUserIsRefusedWithItsOwnerNamed() throws {
        let work = try TemporaryDirectory()
        defer { work.remove() }
        chmod(work.path, 0o711)
        #expect(try WaymarkBinary.run(["--data-dir", work.file("data"), "start"], in: work).status == 0)
        chmod(work.file("data"), 0o700)
        for command in ["status", "start", "whoami"] {
            let result = try Self.runAsNobody(["--data-dir", work.file("data"), command], in: work)
            #expect(result.status == 77, "\(command): \(result.output)")
            #expect(result.output.contains(work.file("data")) && result.output.contains("belongs to root"), "\(command): \(result.output)")
        }
    }

    @Test func readOnlyCommandsNeverCreateAStore() throws {
        let work = try TemporaryDirectory()
        defer { work.remove() }
        for (command, status) in [("whoami", 1), ("status", 0), ("trips", 0), ("queue", 0), ("events", 0), ("beacons", 0)] as [(String, Int32)] {
            let result = try WaymarkBinary.run(["--data-dir", work.file("data"), command], in: work)
            #expect(result.status == status, "\(command): \(result.output)")
        }
        #expect(!FileManager.default.fileExists(atPath: work.file("data")))
    }

    @Test func exitCodesAgreeAcrossCommands() throws {
        let work = try TemporaryDirectory()
        defer { work.remove() }
        let data = ["--data-dir", work.file("data")]
        #expect(try WaymarkBinary.run(data + ["start"], in: work).status == 0)
        // A store from a newer Waymark that this one may not use: 78 from every command, and left alone.
        let store = try GatewayStore(path: work.file("data/waymark.db"))
        try store.database.write { connection in
            try connection.run("PRAGMA user_version = 99")
            try connection.run("UPDATE schema_compat SET oldest_reader = 99")
        }
        for command in [["run"], ["status"], ["start"], ["whoami"], ["trips"], ["queue"], ["beacons"], ["events"]] {
            let result = try WaymarkBinary.run(data + command, in: work)
            #expect(result.status == 78, "\(command): \(result.output)")
            #expect(result.output.contains("schema version 99"), "\(command): \(result.output)")
        }
        // A damaged store is refused by a command that only reads (74, left as it is),
        // and moved aside by one that writes; each says so.
        for (command, status) in [(["status"], 74), (["trips"], 74), (["start"], 0)] as [([String], Int32)] {
            try Data(repeating: 0x5A, count: 8192).write(to: URL(fileURLWithPath: work.file("data/waymark.db")))
            try? FileManager.default.removeItem(atPath: work.file("data/waymark.db-wal"))
            try? FileManager.default.removeItem(atPath: work.file("data/waymark.db-shm"))
            let result = try WaymarkBinary.run(data + command, in: work)
            #expect(result.status == status, "\(command): \(result.output)")
            #expect(result.output.contains(status == 0 ? "moved it to" : "is damaged"), "\(command): \(result.output)")
        }
        // Permission denied: 77 from every command.
        chmod(work.path, 0o711)
        for command in [["status"], ["start"], ["trips"], ["pair", "--ibeacon", "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0:1:2"]] {
            try? FileManager.default.removeItem(atPath: work.file("nobody"))
            mkdir(work.file("nobody"), 0o700)
            chown(work.file("nobody"), 65534, 65534)
            mkdir(work.file("nobody/data"), 0o700)
            let result = try Self.runAsNobody(["--data-dir", work.file("nobody/data")] + command, in: work)
            #expect(result.status == 77, "\(command): \(result.output)")
        }
    }

    @Test func anExportIsPrivateAndReplacesAFileOnlyWhenForced() throws {
        let work = try TemporaryDirectory()
        defer { work.remove() }
        let recordings = RecordingStore(database: try GatewayStore(path: work.file("data/waymark.db")).database)
        try recordings.tripStarted("trip-1", at: 1_796_000_000)
        try recordings.addPoints([TripPoint(tripID: "trip-1", time: 1_796_000_000, lat: 48.2, lon: 8.4, alt: nil)])
        let out = work.file("trip.gpx")
        let arguments = ["--data-dir", work.file("data"), "export", "--trip", "trip-1", "--out", out]
        let old = umask(0)
        defer { umask(old) }
        #expect(try WaymarkBinary.run(arguments, in: work).status == 0)
        #expect(Self.mode(out) == 0o600)
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: out))
        let again = try WaymarkBinary.run(arguments, in: work)
        #expect(again.status == 73 && again.output.contains("--force"), "\(again.output)")
        #expect(try String(contentsOfFile: out, encoding: .utf8) == "keep me")
        #expect(try WaymarkBinary.run(arguments + ["--force"], in: work).status == 0)
        #expect(try String(contentsOfFile: out, encoding: .utf8).contains("<trkpt"))
        #expect(Self.mode(out) == 0o600)
    }

    /// The bindkey from a file or standard input never appears on the command line.
    @Test func aBindkeyIsTakenFromAFileOrStandardInput() throws {
        let work = try TemporaryDirectory()
        defer { work.remove() }
        let key = "231d39c1d7cc1ab1aee224cd096db932"
        try (key + "\n").write(toFile: work.file("key"), atomically: true, encoding: .utf8)
        chmod(work.file("key"), 0o600)
        let data = ["--data-dir", work.file("data")]
        let fromFile = try WaymarkBinary.run(data + ["pair", "--address", "54:48:E6:8F:80:A5", "--role", "sensor", "--bindkey-file", work.file("key")], in: work)
        #expect(fromFile.status == 0, "\(fromFile.output)")
        let pipe = Pipe()
        let fromStdin = try ChildProcess(try WaymarkBinary.path, data + ["pair", "--address", "54:48:E6:8F:80:A6", "--role", "sensor", "--bindkey", "-"],
                                         aptPackage: "(built by swift build)", logPath: work.file("stdin.log"), stdin: pipe)
        ChildProcess.feed(pipe, Data((key + "\n").utf8))
        #expect(try fromStdin.wait(timeout: 30) == 0, "\(fromStdin.output)")
        let stored = try GatewayStore(path: work.file("data/waymark.db")).database.read { connection in
            try connection.rows("SELECT bindkey FROM pairing ORDER BY id") { $0.text(0) }
        }
        #expect(stored == [key, key])
        let listed = try WaymarkBinary.run(data + ["beacons", "--json"], in: work)
        #expect(!listed.output.contains(key))
        let bad = try WaymarkBinary.run(data + ["pair", "--address", "54:48:E6:8F:80:A7", "--bindkey-file", work.file("missing")], in: work)
        #expect(bad.status == 74 && !bad.output.contains(key), "\(bad.output)")
    }

    /// `run` marks itself undumpable: the kernel then gives its /proc files
    /// to root. It also turns transparent huge pages off for itself, which
    /// Debian's kernels have always on (see `HugePages`).
    @Test func theDaemonCannotBeDumpedOrTracedByItsOwnUserAndTakesNoHugePages() async throws {
        let work = try TemporaryDirectory()
        defer { work.remove() }
        chmod(work.path, 0o711)
        mkdir(work.file("nobody"), 0o700)
        chown(work.file("nobody"), 65534, 65534)
        let daemon = try ChildProcess("setpriv", Self.nobody + [try WaymarkBinary.path, "--data-dir", work.file("nobody/data"), "run"],
                                      aptPackage: "util-linux", environment: ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=/nonexistent"],
                                      logPath: work.file("run.log"))
        defer { daemon.stop() }
        try await withDeadline(.seconds(20), "the daemon to start") {
            while !daemon.output.contains("starting") { try await Task.sleep(for: .milliseconds(50)) }
        }
        var info = stat()
        #expect(stat("/proc/\(daemon.pid)/environ", &info) == 0)
        #expect(info.st_uid == 0, "a dumpable process's /proc files belong to its user (\(info.st_uid))")
        let status = try String(contentsOfFile: "/proc/\(daemon.pid)/status", encoding: .utf8)
        #expect(status.contains("THP_enabled:\t0"), "\(status.split(separator: "\n").filter { $0.hasPrefix("THP") })")
    }

    @Test func configFilesWithCRLFParseAndControlCharactersOrHugeFilesAreRefused() throws {
        let work = try TemporaryDirectory()
        defer { work.remove() }
        let crlf = "[Recording]\r\nGapThreshold = 90s\r\n\r\n[Upload]\r\nBatchSize = 250\r\n"
        let parsed = try Configuration.parse(crlf, file: "crlf.conf")
        #expect(parsed.recording.gapThreshold == .seconds(90) && parsed.upload.batchSize == 250)
        try crlf.write(toFile: work.file("crlf.conf"), atomically: true, encoding: .utf8)
        #expect(try WaymarkBinary.run(["--config", work.file("crlf.conf"), "config"], in: work).status == 0)

        for (text, expected) in [("[Logging]\nLevel = in\u{0}fo\n", "2: Logging.Level: control character U+0"),
                                 ("[Upload]\nBatchSize = 5\u{1B}[2J\n", "2: Upload.BatchSize: control character U+1B")] {
            try text.write(toFile: work.file("bad.conf"), atomically: true, encoding: .utf8)
            let result = try WaymarkBinary.run(["--config", work.file("bad.conf"), "config"], in: work)
            #expect(result.status == 78, "\(result.output)")
            #expect(result.output.contains(work.file("bad.conf") + ":" + expected) && result.output.split(separator: "\n").count == 1, "\(result.output)")
        }
        #expect(FileManager.default.createFile(atPath: work.file("huge.conf"), contents: Data(repeating: UInt8(ascii: "#"), count: (1 << 20) + 1)))
        let huge = try WaymarkBinary.run(["--config", work.file("huge.conf"), "config"], in: work)
        #expect(huge.status == 78 && huge.output.contains("1 MiB"), "\(huge.output)")
        let zero = try WaymarkBinary.run(["--config", "/dev/zero", "config"], in: work)
        #expect(zero.status == 78, "\(zero.output)")
    }

    @Test(arguments: [
        (["--service-data", "nonsense:0102"], 65, "UUID"), (["--service-data", "fcd2:40", "--address", "54:48:E6"], 65, "--address"),
        (["--service-data", "fcd2:41", "--bindkey", "231d39c1d7cc1ab1aee224cd096db932"], 64, "needs --address"),
        (["--service-data", "fcd2:41", "--bindkey", "abc", "--address", "54:48:E6:8F:80:A5"], 65, "32 hex digits"),
    ] as [([String], Int32, String)])
    func decodeChecksItsInput(_ arguments: [String], _ status: Int32, _ message: String) throws {
        let work = try TemporaryDirectory()
        defer { work.remove() }
        let result = try WaymarkBinary.run(["decode"] + arguments, in: work)
        #expect(result.status == status && result.output.contains(message), "\(result.output)")
    }
}
