import DBusFloor
import Foundation
import Upload

let arguments = CommandLine.arguments.dropFirst()
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
    if let index = arguments.firstIndex(of: "--receive-burst") {
        let rest = Array(arguments[arguments.index(after: index)...])
        try await ScanBench.receiveBurst(address: rest[0], device: rest[1], count: Int(rest[2]) ?? 0)
        exit(0)
    }
    if let index = arguments.firstIndex(of: "--receive-floor-burst") {
        let rest = Array(arguments[arguments.index(after: index)...])
        exit(dbus_floor_receive(rest[0], rest[1], rest[2], Int(rest[3]) ?? 0))
    }
    if let index = arguments.firstIndex(of: "--receive-mgmt-burst") {
        let rest = Array(arguments[arguments.index(after: index)...])
        try await ScanBench.receiveManagementBurst(address: rest[0], socketPath: rest[1], count: Int(rest[2]) ?? 0)
        exit(0)
    }
    if let index = arguments.firstIndex(of: "--receive-adverts") {
        let rest = Array(arguments[arguments.index(after: index)...])
        try await VMStackBench.receiveAdverts(adapter: rest[0], seconds: Int(rest[1]) ?? 60)
        exit(0)
    }
    if let index = arguments.firstIndex(of: "--many-devices") {
        try await ScanBench.countDevices(address: arguments[arguments.index(after: index)])
        exit(0)
    }
    if let index = arguments.firstIndex(of: "--decode-only") {
        var report = BenchReport()
        ScanBench(quick: true).decodeOnly(arguments[arguments.index(after: index)], into: &report)
        print(report.text)
        exit(0)
    }
    if let index = arguments.firstIndex(of: "--upload-soak") {
        let rest = Array(arguments[arguments.index(after: index)...])
        let sinks = rest.count > 4 ? rest[4].split(separator: ",").compactMap { UploadSink(rawValue: String($0)) } : [.http]
        try await UploadSoak.run(database: rest[0], issuer: rest[1], backend: rest[2], mode: rest[3], sinks: sinks, mqtt: rest.count > 5 ? rest[5] : nil)
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
        "--replay-only": { var report = BenchReport(); try ReplayBench(quick: quick).run(into: &report); return report },
        "--launch-only": { var report = BenchReport(); try await LaunchBench(quick: quick).run(into: &report); return report },
        // Not in the full run: it boots the real-BlueZ VM (minutes).
        "--vm-stack-only": { var report = BenchReport(); try await VMStackBench(quick: quick).run(into: &report); return report },
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
