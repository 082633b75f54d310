import Basics
import BlueZ
import DBusFloor
import Foundation
import Radio
import Upload

let arguments = CommandLine.arguments.dropFirst()
// The receivers run as `waymark` does: no transparent huge pages, from the start.
if arguments.contains("--receive-adverts") { _ = HugePages.turnOff() }
let quick = arguments.contains("--quick")

func bench() async throws -> BenchReport {
    var report = BenchReport()
    try await DBusBench(quick: quick).run(into: &report)
    try StorageBench(quick: quick).run(into: &report)
    try await ScanBench(quick: quick).run(into: &report)
    try LocationBench(quick: quick).run(into: &report)
    try await UploadBench(quick: quick).run(into: &report)
    try await MQTTBench(quick: quick).run(into: &report)
    try PipelineBench(quick: quick).run(into: &report)
    try ReplayBench(quick: quick).run(into: &report)
    try await LaunchBench(quick: quick).run(into: &report)
    report.add("rss", ResourceUsage.residentMegabytes, unit: "MiB", note: "peak resident set of the bench process")
    return report
}

do {
    // Entry points that take the arguments after their flag, then exit: the
    // bench's own child processes (receivers, soaks) and `--order-file`.
    let children: [String: ([String]) async throws -> Void] = [
        "--receive-burst": { try await ScanBench.receiveBurst(address: $0[0], device: $0[1], count: Int($0[2]) ?? 0) },
        "--receive-floor-burst": { exit(dbus_floor_receive($0[0], $0[1], $0[2], Int($0[3]) ?? 0)) },
        "--receive-mgmt-burst": { try await ScanBench.receiveManagementBurst(address: $0[0], socketPath: $0[1], count: Int($0[2]) ?? 0) },
        "--receive-adverts": { try await VMStackBench.receiveAdverts(adapter: $0[0], seconds: Int($0[1]) ?? 60, mode: $0.count > 2 ? ScanMode(rawValue: $0[2]) : nil) },
        "--order-file": { try await OrderFile.write(to: $0[0]) },
        "--decode-only": { rest in
            var report = BenchReport()
            ScanBench(quick: true).decodeOnly(rest[0], into: &report)
            print(report.text)
        },
        "--upload-soak": { rest in
            let sinks = rest.count > 4 ? rest[4].split(separator: ",").compactMap { UploadSink(rawValue: String($0)) } : [.http]
            try await UploadSoak.run(database: rest[0], issuer: rest[1], backend: rest[2], mode: rest[3], sinks: sinks, mqtt: rest.count > 5 ? rest[5] : nil)
        },
    ]
    if let index = arguments.firstIndex(where: { children[$0] != nil }) {
        try await children[arguments[index]]!(Array(arguments[arguments.index(after: index)...]))
        exit(0)
    }
    // `--NAME-only` runs one section of the bench.
    let sections: [String: () async throws -> BenchReport] = [
        "--dbus-only": { var report = BenchReport(); try await DBusBench(quick: quick).run(into: &report); return report },
        "--location-only": { var report = BenchReport(); try LocationBench(quick: quick).run(into: &report); return report },
        "--upload-only": { var report = BenchReport(); try await UploadBench(quick: quick).run(into: &report); return report },
        "--mqtt-only": { var report = BenchReport(); try await MQTTBench(quick: quick).run(into: &report); return report },
        "--pipeline-only": { var report = BenchReport(); try PipelineBench(quick: quick).run(into: &report); return report },
        "--burst-only": { var report = BenchReport(); try await ScanBench(quick: quick).burst(into: &report); return report },
        "--devices-only": { var report = BenchReport(); try await ScanBench(quick: quick).manyDevices(into: &report); return report },
        "--replay-only": { var report = BenchReport(); try ReplayBench(quick: quick).run(into: &report); return report },
        "--launch-only": { var report = BenchReport(); try await LaunchBench(quick: quick).run(into: &report); return report },
        // Not in the full run: it boots the real-BlueZ VM (minutes).
        "--vm-stack-only": { var report = BenchReport(); try await VMStackBench(quick: quick).run(into: &report); return report },
        // Not in the full run either: the busy-air VM, every step and receiver (tens of minutes).
        "--air-only": { var report = BenchReport(); try await AirBench(quick: quick).run(into: &report); return report },
        "--air-memory-only": { var report = BenchReport(); try await AirBench(quick: quick, memory: true).run(into: &report); return report },
    ]
    if let section = arguments.lazy.compactMap({ sections[$0] }).first {
        print(try await section().text)
        exit(0)
    }
    let report = try await bench()
    print(arguments.contains("--json") ? report.json : report.text)
} catch {
    FileHandle.standardError.write(Data("waymark-bench: \(error)\n".utf8))
    exit(1)
}
