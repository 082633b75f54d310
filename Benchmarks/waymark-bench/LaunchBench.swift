import DBus
import Foundation
import Peers

/// `waymark run` from exec to armed (the control interface's `Running`
/// true) with a persisted session, against the BlueZ mock, gpsd and
/// glewlwyd; and the daemon's RSS while it records.
struct LaunchBench {
    var quick: Bool
    /// What runs as `waymark` (the order-file profile wraps it in valgrind).
    var binary: String?

    func run(into report: inout BenchReport) async throws {
        let work = try TemporaryDirectory("waymark-bench-launch")
        defer { work.remove() }
        let binary = try self.binary ?? WaymarkBinary.named("waymark")
        let rig = try await BlueZTestRig()
        defer { rig.stop() }
        try await rig.addAdapter()
        let provider = try Glewlwyd(directory: work)
        defer { provider.stop() }
        let backend = try IngestServer(directory: work)
        defer { backend.stop() }
        let gpsd = try GPSDaemon(device: nil, directory: work)
        defer { gpsd.stop() }
        try (try provider.waymarkConfig(backend: backend, secretFile: work.file("secret")) + """
            [Location]
            Source = gpsd://127.0.0.1:\(gpsd.port)

            """).write(toFile: work.file("w.conf"), atomically: true, encoding: .utf8)
        let arguments = ["--config", work.file("w.conf"), "--data-dir", work.file("data")]
        try Glewlwyd.logIn(binary, arguments, logPath: work.file("login.log"))

        // A binary linked a moment ago is dirty in the page cache, and smaps
        // would count its pages as the daemon's private dirty memory.
        sync()
        let environment = rig.bus.environment.merging(try Self.unitEnvironment()) { $1 }
        var launches: [Double] = []
        var rss = 0.0
        var memory: [String: Double] = [:]
        for attempt in 0..<(quick ? 3 : 7) {
            let start = ContinuousClock.now
            let daemon = try ChildProcess(binary, arguments + ["run"], aptPackage: "(built by swift build)",
                                          environment: environment, logPath: work.file("run-\(attempt).log"))
            while !daemon.output.contains("recording: running") {
                guard daemon.isRunning, ContinuousClock.now - start < .seconds(30) else { throw PeerError.startFailed("waymark run", output: daemon.output) }
                usleep(500)
            }
            launches.append(seconds(ContinuousClock.now - start) * 1000)
            try await Task.sleep(for: .seconds(1))
            rss = max(rss, ResourceUsage.residentMegabytes(of: daemon.pid))
            memory.merge(Self.rollup(daemon.pid)) { max($0, $1) }
            daemon.kill(SIGTERM)
            _ = try daemon.wait(timeout: 5)
        }
        launches.sort()
        report.add("launch.armed", launches[launches.count / 2], unit: "ms",
                   note: "exec of waymark run to recording running, persisted session, median of \(launches.count) (min \(Int(launches[0])) ms)")
        report.add("launch.rss", rss, unit: "MiB", note: "the daemon's resident set while recording (scanner, gpsd reader, session, uploader), with the unit's Environment=")
        // Most of the resident set is clean pages of files (the binary's
        // code, the shared libraries) that the kernel can drop and re-read,
        // or that other processes share; what the daemon alone costs the Pi
        // is its private dirty memory, and its fair share is PSS.
        report.add("launch.pss", memory["Pss", default: 0], unit: "MiB", note: "the same daemon's proportional share (smaps_rollup Pss)")
        report.add("launch.private_dirty", memory["Private_Dirty", default: 0], unit: "MiB",
                   note: "its private dirty memory: heap, stacks and written data, what no other process shares or the kernel can drop")
        report.add("launch.file_backed", memory["Rss", default: 0] - memory["Anonymous", default: 0], unit: "MiB",
                   note: "resident pages of files (binary and libraries), clean unless relocated")
        if self.binary == nil, let coverage = try Self.orderCoverage(binary) {
            report.add("launch.order_file_found", coverage * 100, unit: "%",
                       note: "names in Benchmarks/waymark.order that the binary still has; as it drops, code spreads again: run make order-file")
        }
    }

    /// The share of the order file's names among the binary's symbols; nil
    /// without the file (a build from elsewhere).
    static func orderCoverage(_ binary: String) throws -> Double? {
        guard let order = try? String(contentsOfFile: FileManager.default.currentDirectoryPath + "/Benchmarks/waymark.order", encoding: .utf8) else {
            return nil
        }
        let listing = Pipe()
        let nm = try ChildProcess("nm", ["--defined-only", "--format=just-symbols", binary], aptPackage: "binutils",
                                  logPath: "/dev/null", stdout: listing)
        let symbols = Set(String(decoding: listing.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).split(separator: "\n"))
        _ = try nm.wait(timeout: 30)
        let names = order.split(separator: "\n")
        return names.isEmpty ? nil : Double(names.count { symbols.contains($0) }) / Double(names.count)
    }

    /// The `Environment=` settings of the shipped unit, so the daemon runs
    /// here as systemd runs it.
    static func unitEnvironment() throws -> [String: String] {
        let unit = try String(contentsOfFile: FileManager.default.currentDirectoryPath + "/hardware/waymark.service", encoding: .utf8)
        var environment: [String: String] = [:]
        for line in unit.split(separator: "\n") where line.hasPrefix("Environment=") {
            for setting in line.dropFirst("Environment=".count).split(separator: " ") {
                let parts = setting.split(separator: "=", maxSplits: 1)
                if parts.count == 2 { environment[String(parts[0])] = String(parts[1]) }
            }
        }
        return environment
    }

    /// `/proc/PID/smaps_rollup`'s totals, in MiB.
    static func rollup(_ pid: pid_t) -> [String: Double] {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/smaps_rollup", encoding: .utf8) else { return [:] }
        var totals: [String: Double] = [:]
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count == 3, fields[2] == "kB", let kilobytes = Double(fields[1]) else { continue }
            totals[String(fields[0].dropLast())] = kilobytes / 1024
        }
        return totals
    }
}
