import Basics
import Capture
import Foundation
import PeerHarness
import Testing

/// Power cuts, as a car's ignition gives a Pi without a UPS: the real-BlueZ
/// VM (Tests/VM/vm-power.sh) records with a paired beacon and NMEA, uploads
/// to the ingest here and refreshes its session from glewlwyd here, with
/// its store on a virtio disk of its own, an ext4 image with QEMU's
/// `cache=none`. QEMU is killed -9 at a random moment of one phase (a
/// commit, an upload, a refresh, a pairing, a capture's rotation, a first
/// start on the previous release's store), then the disk is checked here
/// and the VM boots again, which is where the next cut comes.
///
/// After each cut: fsck, SQLite's integrity check, the session and the
/// pairing read back, every capture file whole up to its last flush, and
/// every sample the daemon logged as committed (`outbox: committed seq …`,
/// logged once the transaction is) in the store or at the ingest, which
/// must hold no sample twice.
struct PowerCutTests {
    static let phases = ["commit", "upload", "refresh", "pairing", "capture", "migration"]
    static let identity = "ibeacon:e2c56db5-dffb-48d2-b060-d0f5a71096e0:100:0"
    static let programs = [("mkfs.ext4", "e2fsprogs"), ("e2fsck", "e2fsprogs"), ("debugfs", "e2fsprogs"), ("sqlite3", "sqlite3"), ("socat", "socat")]

    /// VMs cut side by side, one core each: a boot is mostly one thread's
    /// work, so lanes of one core each do more cuts than one VM of two.
    static let lanes = 2

    @Test func fiftyPowerCutsDamageNoStoreAndLoseNoCommittedSample() async throws {
        let environment = ProcessInfo.processInfo.environment
        let cuts = Int(environment["WAYMARK_POWER_CUTS"] ?? "") ?? 50
        let seed = UInt64(environment["WAYMARK_POWER_SEED"] ?? "") ?? UInt64(Date().timeIntervalSince1970 * 1000)
        print("power cuts: \(cuts) in \(Self.lanes) VMs side by side, seed \(seed) (WAYMARK_POWER_SEED=\(seed) repeats the moments)")
        for (program, package) in Self.programs { _ = try ChildProcess.locate(program, aptPackage: package) }
        let started = Date()

        let work = try TemporaryDirectory("waymark-power")
        // A short-lived access token: the daemon refreshes every few seconds.
        let provider = try Glewlwyd(directory: work, accessTokenSeconds: 6)
        let backend = try IngestServer(directory: work)
        defer {
            provider.stop()
            backend.stop()
        }
        let lanes = try (1...Self.lanes).map { number in
            try Lane(number: number, provider: provider, backend: backend, seed: seed &+ UInt64(number))
        }
        let outcomes = try await withThrowingTaskGroup(of: Lane.Outcome.self) { group in
            for lane in lanes {
                let numbers = Array(stride(from: lane.number, through: cuts, by: Self.lanes))
                group.addTask { try await lane.cut(numbers, backend: backend) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }

        var report: [String: PhaseReport] = [:]
        for outcome in outcomes {
            for (phase, check) in outcome.checks { report[phase, default: PhaseReport()].add(check) }
        }
        let summary = try backend.summary()
        #expect(summary.conflicts == 0, "a sequence number came back with other content: \(summary)")
        let armed = outcomes.flatMap(\.armed)
        print("power cuts by phase (seed \(seed)):\n" + PhaseReport.table(report, phases: Self.phases))
        print("power cuts: \(outcomes.map(\.committed).reduce(0, +)) samples logged as committed, \(summary.stored) at the ingest, "
              + "\(summary.duplicates) resends absorbed; power-on → armed: median \(Self.median(armed)) s, longest "
              + "\(armed.max().map { String(format: "%.1f", $0) } ?? "?") s (the guest's uptime); \(Int(Date().timeIntervalSince(started))) s in all")
    }

    // MARK: The set-up

    /// Logs in and pairs here, then makes the store's disk from that store.
    static func prepare(_ job: TemporaryDirectory, provider: Glewlwyd, backend: IngestServer) throws -> String {
        try FileManager.default.copyItem(atPath: try WaymarkBinary.path, toPath: job.file("waymark"))
        for script in ["vm-power.sh": "vm-job.sh", "vm-lib.sh": "vm-lib.sh", "vhci-crypto.sh": "vhci-crypto.sh"] {
            try FileManager.default.copyItem(atPath: Checkout.path("Tests/VM/" + script.key), toPath: job.file(script.value))
        }
        try FileManager.default.copyItem(atPath: Checkout.path("hardware/io.waymark.Gateway1.conf"), toPath: job.file("io.waymark.Gateway1.conf"))
        try FileManager.default.copyItem(atPath: Checkout.path("Tests/StoreTests/PreviousRelease/store-schema10.db"), toPath: job.file("store-schema10.db"))
        let hostConfig = try provider.waymarkConfig(backend: backend, secretFile: job.file("client-secret"))
        try hostConfig.write(toFile: job.file("host.conf"), atomically: true, encoding: .utf8)
        try (hostConfig.replacingOccurrences(of: job.file("client-secret"), with: "/etc/waymark/client-secret") + """

            [Bluetooth]
            # hci0 is the car's beacon, pulsed as btvirt needs (Tests/VM/vm-lib.sh).
            Adapter = hci1
            ScanMode = active

            [Location]
            Source = nmea:///run/waymark-gps

            [Recording]
            # Something to commit all the time: every fix, the beacon every second.
            FixInterval = 0s
            BeaconInterval = 1s
            Capture = /var/lib/waymark/capture
            CaptureMaxBytes = 1K

            [Upload]
            BatchSize = 5
            BatchAge = 1s

            [Logging]
            Level = debug

            """).write(toFile: job.file("waymark.conf"), atomically: true, encoding: .utf8)
        try """
            ADVERT=1aff4c000215e2c56db5dffb48d2b060d0f5a71096e000640000c5
            OIDC_PORT=\(try port(provider.issuer))
            INGEST_PORT=\(backend.port)

            """.write(toFile: job.file("job.env"), atomically: true, encoding: .utf8)

        // The disk's root; waymark makes the data directory in it, never missing parents.
        mkdir(job.file("store"), 0o755)
        let store = ["--config", job.file("host.conf"), "--data-dir", job.file("store/data")]
        let input = Pipe()
        let login = try ChildProcess(try WaymarkBinary.path, store + ["login", "--username", Glewlwyd.username, "--password-stdin"],
                                     aptPackage: "(built by swift build)", logPath: job.file("login.log"), stdin: input)
        ChildProcess.feed(input, Data((Glewlwyd.password + "\n").utf8))
        try #require(try login.wait(timeout: 60) == 0, "login: \(login.output)")
        let pair = try WaymarkBinary.run(store + ["pair", "--ibeacon", "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0:100:0", "--label", "car"], in: job)
        try #require(pair.status == 0, "pair: \(pair.output)")
        try run("mkfs.ext4", ["-q", "-F", "-L", "waymark", "-d", job.file("store"), job.file("disk.img"), "256M"], job)
        return job.file("disk.img")
    }

    // MARK: The cut

    /// Where the phase's moment shows (a file in the job folder), what marks
    /// it, and how long after it the cut may come.
    static func trigger(_ phase: String, _ cut: Int) -> (file: String, text: String, window: Double) {
        switch phase {
        case "commit": ("run-\(cut).log", "outbox: committed seq", 0.25)
        case "upload": ("run-\(cut).log", "upload: sending samples", 0.3)
        case "refresh": ("run-\(cut).log", "session: refreshing the access token", 0.3)
        case "pairing": ("run-\(cut).log", "power-test: pair ", 0.8)
        case "capture": ("run-\(cut).log", "is full; continuing in", 1.0)
        default: ("upgrade-\(cut).log", "starting on the previous release's store", 1.5)
        }
    }

    /// Waits until `text` appears in `file` after the daemon armed (when
    /// `armed` exists); false if the machine stops or the time runs out.
    static func waitForNew(_ text: String, in file: String, after armed: String, while machine: ChildProcess, timeout: Double) async throws -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        var from: Int?
        while machine.isRunning, Date() < deadline {
            let bytes = (try? Data(contentsOf: URL(fileURLWithPath: file))) ?? Data()
            if from == nil, FileManager.default.fileExists(atPath: armed) { from = bytes.count }
            if let from, bytes.count > from, String(decoding: bytes[from...], as: UTF8.self).contains(text) { return true }
            try await Task.sleep(for: .milliseconds(10))
        }
        return false
    }

    // MARK: After the cut

    struct Check: Sendable {
        var problems: [String] = []
        var fsckExit: Int32 = 0
        var captures = 0
        var cutCaptures = 0
        /// The highest seq the store ever gave a sample.
        var lastSeq = 0
        var migrated: Bool?
    }

    /// What the cut left on the disk, read here with e2fsprogs and sqlite3;
    /// with a `backend`, also where the `committed` samples went.
    static func check(_ disk: String, cut: Int, phase: String, job: TemporaryDirectory, backend: IngestServer?,
                      deviceID: String, committed: Set<Int>) throws -> Check {
        var check = Check()
        let fsck = try ChildProcess("e2fsck", ["-f", "-y", disk], aptPackage: "e2fsprogs", logPath: job.file("fsck-\(cut).log"))
        check.fsckExit = try fsck.wait(timeout: 120)
        // 0: clean; 1: the journal was replayed or something was fixed; more is damage.
        if check.fsckExit > 1 { check.problems.append("fsck exit \(check.fsckExit): \(fsck.output.suffix(800))") }
        let copy = job.file("after-\(cut)")
        try? FileManager.default.removeItem(atPath: copy)
        try FileManager.default.createDirectory(atPath: copy, withIntermediateDirectories: false)
        try run("debugfs", ["-R", "rdump / \(copy)", disk], job)
        // The files belong to the guest's user waymark; waymark here wants them to be ours.
        try run("chown", ["-R", "\(getuid()):\(getgid())", copy], job)
        chmod(copy + "/data", 0o700)

        let store = copy + "/data/waymark.db"
        let integrity = try sqlite(store, "PRAGMA integrity_check", job)
        if integrity != ["ok"] { check.problems.append("integrity_check: \(integrity.prefix(3))") }
        let aside = (try? FileManager.default.contentsOfDirectory(atPath: copy + "/data"))?.filter { $0.contains(".corrupt-") } ?? []
        if !aside.isEmpty { check.problems.append("a damaged store was moved aside: \(aside)") }

        check.lastSeq = Int(try sqlite(store, "SELECT seq FROM sqlite_sequence WHERE name = 'outbox'", job).first ?? "") ?? 0
        if let backend { check.problems += try whereCommittedWent(committed, store: store, backend: backend, deviceID: deviceID, job: job) }

        // The session and the pairing read back through waymark.
        let arguments = ["--config", job.file("host.conf"), "--data-dir", copy + "/data"]
        let whoami = try WaymarkBinary.run(arguments + ["whoami", "--json"], in: job)
        if whoami.status != 0 || !whoami.output.contains(#""authorized":true"#) { check.problems.append("whoami: \(whoami.output.prefix(300))") }
        let beacons = try WaymarkBinary.run(arguments + ["beacons", "--json"], in: job)
        if beacons.status != 0 || !beacons.output.contains(identity) { check.problems.append("beacons: \(beacons.output.prefix(300))") }

        // Every capture reads to its last flush: complete, or cut by a power cut.
        let captures = CaptureDirectory.files(in: copy + "/capture")
        check.captures = captures.count
        for path in captures {
            do {
                let reader = try CaptureReader(path: path)
                while reader.next() != nil {}
                if case .damaged = reader.stop { check.problems.append("\((path as NSString).lastPathComponent): \(String(describing: reader.stop))") }
                if case .cut = reader.stop { check.cutCaptures += 1 }
            } catch {
                check.problems.append("\((path as NSString).lastPathComponent): \(error)")
            }
        }

        if phase == "migration" {
            let upgraded = copy + "/upgraded-\(cut)/waymark.db"
            if FileManager.default.fileExists(atPath: upgraded) {
                let version = try sqlite(upgraded, "PRAGMA user_version", job).first ?? "?"
                check.migrated = version != "10"
                if !["10", "11"].contains(version) { check.problems.append("the upgraded store is at schema \(version)") }
                if try sqlite(upgraded, "PRAGMA integrity_check", job) != ["ok"] { check.problems.append("the upgraded store fails its integrity check") }
                let kept = try sqlite(upgraded, "SELECT (SELECT count(*) FROM outbox WHERE seq BETWEEN 14 AND 16) || (SELECT count(*) FROM trip) || (SELECT count(*) FROM pairing) || (SELECT count(*) FROM session)", job)
                if kept != ["3111"] { check.problems.append("the upgraded store lost rows the previous release wrote: \(kept)") }
                let upgradeCommitted = Self.committed(in: text(job, "upgrade-\(cut).log"))
                let upgradeHeld = Set(try sqlite(upgraded, "SELECT seq FROM outbox", job).compactMap { Int($0) })
                if !upgradeCommitted.isSubset(of: upgradeHeld) { check.problems.append("the upgraded store lost committed samples") }
            } else {
                check.migrated = false
            }
        }
        try? FileManager.default.removeItem(atPath: copy)
        return check
    }

    /// Every committed sample is in the store (queued or a dead letter) or
    /// at the ingest, which holds no sample twice.
    static func whereCommittedWent(_ committed: Set<Int>, store: String, backend: IngestServer, deviceID: String,
                                   job: TemporaryDirectory) throws -> [String] {
        var problems: [String] = []
        var held = Set(try sqlite(store, "SELECT seq FROM outbox", job).compactMap { Int($0) })
        for range in try sqlite(store, "SELECT first_seq || ' ' || last_seq FROM dead_letter", job) {
            let bounds = range.split(separator: " ").compactMap { Int($0) }
            if bounds.count == 2, bounds[0] <= bounds[1] { held.formUnion(bounds[0]...bounds[1]) }
        }
        let ingested = try backend.stored().filter { $0.device == deviceID }
        held.formUnion(ingested.map(\.seq))
        let lost = committed.subtracting(held)
        if !lost.isEmpty { problems.append("\(lost.count) committed samples lost: \(lost.sorted().prefix(10))") }
        var seen: [String: Int] = [:]
        for (_, seq, sample) in ingested {
            var content = sample
            content["seq"] = nil
            let key = String(decoding: (try? JSONSerialization.data(withJSONObject: content, options: [.sortedKeys])) ?? Data(), as: UTF8.self)
            if let earlier = seen[key] { problems.append("the ingest holds one sample twice: seq \(earlier) and \(seq)") }
            seen[key] = seq
        }
        return problems
    }

    /// The sequence numbers a daemon's log says it committed.
    static func committed(in log: String) -> Set<Int> {
        var seqs = Set<Int>()
        for line in log.split(separator: "\n") {
            guard let range = line.range(of: "outbox: committed seq ") else { continue }
            let bounds = line[range.upperBound...].split(separator: "-").compactMap { Int($0) }
            if bounds.count == 2, bounds[0] <= bounds[1] { seqs.formUnion(bounds[0]...bounds[1]) }
        }
        return seqs
    }

    // MARK: Helpers

    static func sqlite(_ path: String, _ query: String, _ job: TemporaryDirectory) throws -> [String] {
        let process = try ChildProcess("sqlite3", [path, query], aptPackage: "sqlite3", logPath: job.file("sqlite3.log"))
        _ = try process.wait(timeout: 60)
        return process.output.split(separator: "\n").map(String.init)
    }

    /// Runs an e2fsprogs program (or coreutils' `chown`) to a zero exit.
    static func run(_ program: String, _ arguments: [String], _ job: TemporaryDirectory) throws {
        let package = program == "chown" ? "coreutils" : "e2fsprogs"
        let process = try ChildProcess(program, arguments, aptPackage: package, logPath: job.file("\(program).log"))
        guard try process.wait(timeout: 120) == 0 else { throw PeerError.startFailed(program, output: process.output) }
    }

    static func port(_ url: String) throws -> Int { try #require(URLComponents(string: url)?.port) }

    static func text(_ job: TemporaryDirectory, _ name: String) -> String {
        ((try? String(contentsOfFile: job.file(name), encoding: .utf8)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func tail(_ job: TemporaryDirectory, _ name: String) -> String { "--- \(name)\n" + String(text(job, name).suffix(4000)) }

    static func median(_ values: [Double]) -> String {
        guard !values.isEmpty else { return "?" }
        return String(format: "%.1f", values.sorted()[values.count / 2])
    }
}
