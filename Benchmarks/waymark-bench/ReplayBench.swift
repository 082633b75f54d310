import Foundation
import Peers

/// `waymark replay --fast` of a synthesised hour of busy air (30 other
/// advertisers five times a second, the car's beacon twice a second, a fix
/// every second), as a tester runs it; against `gzip -dc` reading the same
/// file, the least any replay must do.
struct ReplayBench {
    var quick: Bool

    func run(into report: inout BenchReport) throws {
        let work = try TemporaryDirectory("waymark-bench-replay")
        defer { work.remove() }
        let seconds = quick ? 600 : 3600
        let capture = work.file("busy-air.wmcap")
        let records = try BusyAirCapture(seconds: seconds, beaconInRange: [60..<(seconds - 120)]).write(to: capture)
        let size = (try FileManager.default.attributesOfItem(atPath: capture)[.size] as? Int) ?? 0

        var replay: ChildProcess?
        let took = try measure {
            replay = try ChildProcess(try WaymarkBinary.named("waymark"), ["--data-dir", work.file("replayed"), "replay", capture, "--fast"],
                                         aptPackage: "(built by swift build)", logPath: work.file("replay.log"))
            guard try replay!.wait(timeout: 600) == 0 else { throw PeerError.startFailed("waymark replay", output: replay!.output) }
        }
        let floor = try measure {
            let gzip = try ChildProcess("gzip", ["-dc", capture], aptPackage: "gzip", logPath: "/dev/null")
            guard try gzip.wait(timeout: 600) == 0 else { throw PeerError.startFailed("gzip -dc", output: "") }
        }
        let summary = replay?.output.split(separator: "\n").first { $0.hasPrefix("replayed") }.map(String.init) ?? ""
        report.add("replay.busy-air", took, unit: "s", baseline: floor, baselineName: "gzip -dc",
                   note: "\(seconds / 60) min capture, \(records) records, \(size / 1024) KiB; \(Int(Double(seconds) / took))× real time; \(summary)")
        report.add("replay.records", Double(records) / took, unit: "records/s", note: "through decoding, matching, trips and the outbox")
    }
}
