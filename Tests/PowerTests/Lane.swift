import Basics
import Foundation
import PeerHarness
import Testing

/// One VM of the power-cut test with its own disk, store and job folder,
/// cut again and again; lanes share glewlwyd and the ingest.
struct Lane: Sendable {
    struct Outcome: Sendable {
        var checks: [(phase: String, check: PowerCutTests.Check)] = []
        var armed: [Double] = []
        var committed = 0
    }

    let number: Int
    let job: TemporaryDirectory
    let disk: String
    let deviceID: String
    let forwards: [Int]
    let seed: UInt64

    init(number: Int, provider: Glewlwyd, backend: IngestServer, seed: UInt64) throws {
        self.number = number
        self.seed = seed
        job = try TemporaryDirectory("waymark-power-\(number)")
        chmod(job.path, 0o755)
        disk = try PowerCutTests.prepare(job, provider: provider, backend: backend)
        deviceID = try PowerCutTests.sqlite(job.file("store/data/waymark.db"), "SELECT value FROM meta WHERE key = 'device_id'", job).first ?? ""
        forwards = [try PowerCutTests.port(provider.issuer), backend.port]
    }

    /// Cuts the power once for each of `numbers` (whose phases follow from
    /// them), checking the disk after each, then boots once more to see the
    /// daemon arm after the last.
    func cut(_ numbers: [Int], backend: IngestServer) async throws -> Outcome {
        var outcome = Outcome()
        var random = SplitMix64(seed: seed)
        var committed = Set<Int>()
        defer { ["waymark", "disk.img", "initrd.gz"].forEach { unlink(job.file($0)) } }
        for cut in numbers {
            let phase = PowerCutTests.phases[(cut - 1) % PowerCutTests.phases.count]
            try String(cut).write(toFile: job.file("boot"), atomically: true, encoding: .utf8)
            try phase.write(toFile: job.file("phase"), atomically: true, encoding: .utf8)
            let machine = try boot("console-\(cut).log")
            let (file, trigger, window) = PowerCutTests.trigger(phase, cut)
            let found = try await PowerCutTests.waitForNew(trigger, in: job.file(file), after: job.file("armed-\(cut)"), while: machine, timeout: 300)
            guard found else {
                machine.kill(SIGKILL)
                let logs = PowerCutTests.tail(job, "console-\(cut).log") + "\n" + PowerCutTests.tail(job, file)
                Issue.record("cut \(cut) (\(phase)): no \"\(trigger)\" in \(file); files in \(job.path):\n\(logs)")
                return outcome
            }
            let delay = Double(random.next() % 1000) / 1000 * window
            try await Task.sleep(for: .milliseconds(Int(delay * 1000)))
            machine.kill(SIGKILL)
            _ = try machine.wait(timeout: 30)
            if let time = Double(PowerCutTests.text(job, "armed-\(cut)")) { outcome.armed.append(time) }

            committed.formUnion(PowerCutTests.committed(in: PowerCutTests.text(job, "run-\(cut).log")))
            let check = try PowerCutTests.check(disk, cut: cut, phase: phase, job: job, backend: backend, deviceID: deviceID, committed: committed)
            outcome.checks.append((phase, check))
            if !check.problems.isEmpty {
                Issue.record("cut \(cut) (\(phase), \(String(format: "%.3f", delay)) s after the trigger): \(check.problems.joined(separator: "; "))")
            }
        }
        outcome.committed = committed.count

        // A last boot: armed again after the last cut, then a clean power-off.
        try String(numbers.last.map { $0 + PowerCutTests.lanes } ?? 1).write(toFile: job.file("boot"), atomically: true, encoding: .utf8)
        try "final".write(toFile: job.file("phase"), atomically: true, encoding: .utf8)
        let last = try boot("console-final.log")
        _ = try last.wait(timeout: 300)
        #expect(PowerCutTests.text(job, "exit-code") == "0", "lane \(number)'s last boot: \(PowerCutTests.tail(job, "console-final.log"))")
        return outcome
    }

    private func boot(_ console: String) throws -> ChildProcess {
        try BlueZVM.boot(job: job, scripts: Checkout.path("Tests/VM"), console: console, disk: disk, forwards: forwards, cores: 1)
    }
}
