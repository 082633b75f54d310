import Foundation
import PeerHarness
import Testing

/// The power-cut test's finer check: one VM records for 20 s with QEMU's
/// blklogwrites between it and the store's disk, so every write and flush
/// the guest issued is logged in order. The log is then replayed onto the
/// disk's first image, and the store is checked at up to 40 flush points
/// spread over the recording: each is the disk a power cut right after
/// that flush would leave. (The guest's kernel has dm-log-writes too; the
/// log taken on the host side needs no device-mapper set-up in the guest.)
struct WriteLogReplayTests {
    static let points = 40

    @Test func theStoreIsIntactAtFlushPointsAllThroughARecording() async throws {
        for (program, package) in PowerCutTests.programs { _ = try ChildProcess.locate(program, aptPackage: package) }
        let work = try TemporaryDirectory("waymark-write-log")
        defer { work.remove() }
        let provider = try Glewlwyd(directory: work, accessTokenSeconds: 6)
        let backend = try IngestServer(directory: work)
        defer {
            provider.stop()
            backend.stop()
        }
        let lane = try Lane(number: 0, provider: provider, backend: backend, seed: 0)
        let job = lane.job
        defer { ["waymark", "disk.img", "initrd.gz", "first.img", "replayed.img", "check.img", "writes.log"].forEach { unlink(job.file($0)) } }
        try FileManager.default.copyItem(atPath: lane.disk, toPath: job.file("first.img"))
        #expect(FileManager.default.createFile(atPath: job.file("writes.log"), contents: nil), "the write log's file")
        try "1".write(toFile: job.file("boot"), atomically: true, encoding: .utf8)
        try "write-log".write(toFile: job.file("phase"), atomically: true, encoding: .utf8)

        let machine = try BlueZVM.boot(job: job, scripts: Checkout.path("Tests/VM"), console: "console-1.log", disk: lane.disk,
                                       writeLog: job.file("writes.log"), forwards: lane.forwards)
        let recording = try await PowerCutTests.waitForNew("outbox: committed seq", in: job.file("run-1.log"), after: job.file("armed-1"),
                                                           while: machine, timeout: 300)
        if recording { try await Task.sleep(for: .seconds(20)) }
        machine.kill(SIGKILL)
        _ = try machine.wait(timeout: 30)
        try #require(recording, "the daemon never committed: \(PowerCutTests.tail(job, "console-1.log"))\n\(PowerCutTests.tail(job, "run-1.log"))")

        let log = try WriteLog(path: job.file("writes.log"))
        let flushes = log.entries.indices.filter { log.entries[$0].isFlush }.map { $0 + 1 }
        try #require(flushes.count > 1, "\(log.entries.count) writes logged, \(flushes.count) flushes")
        let chosen = Set((0..<Self.points).map { flushes[$0 * (flushes.count - 1) / max(1, Self.points - 1)] })
        print("write log: \(log.entries.count) entries, \(flushes.count) flush points, \(chosen.count) replayed and checked")
        try FileManager.default.copyItem(atPath: job.file("first.img"), toPath: job.file("replayed.img"))
        var replayed = 0, lastSeqs: [Int] = []
        for point in chosen.sorted() {
            try log.replay(replayed..<point, onto: job.file("replayed.img"))
            replayed = point
            unlink(job.file("check.img"))
            try FileManager.default.copyItem(atPath: job.file("replayed.img"), toPath: job.file("check.img"))
            let check = try PowerCutTests.check(job.file("check.img"), cut: 1000 + point, phase: "write-log", job: job, backend: nil,
                                                deviceID: lane.deviceID, committed: [])
            #expect(check.problems.isEmpty, "after write \(point) of \(log.entries.count): \(check.problems.joined(separator: "; "))")
            lastSeqs.append(check.lastSeq)
        }
        // The replay is the recording: the store's samples grow point by point, never back.
        #expect(lastSeqs == lastSeqs.sorted() && (lastSeqs.last ?? 0) > (lastSeqs.first ?? 0), "\(lastSeqs)")
        print("write log: the store's last seq at the points checked: \(lastSeqs.map(String.init).joined(separator: " "))")
    }
}
