import Dispatch
import Foundation
import Peers

// `make demo`: one recorded drive with no hardware. Every process it starts is
// stopped before it exits, also on Ctrl-C.

var options = ["--waymark": "", "--drive": "Tests/LocationTests/drives/visnjan-car.gpx", "--out": "waymark-demo-trip.geojson",
               "--report": "waymark-demo-trip.html", "--mqtt": "off"]
var arguments = CommandLine.arguments.dropFirst()
do {
    while let flag = arguments.popFirst() {
        guard options[flag] != nil, let value = arguments.popFirst() else { throw DemoError.usage("unknown or incomplete \(flag)") }
        options[flag] = value
    }
    if options["--waymark"]!.isEmpty { options["--waymark"] = try WaymarkBinary.named("waymark") }
} catch {
    FileHandle.standardError.write(Data("waymark-demo: \(error)\n".utf8))
    exit(2)
}

let started = Date()
let drive = try DemoDrive(waymark: options["--waymark"]!, drive: options["--drive"]!,
                          output: URL(fileURLWithPath: options["--out"]!).standardizedFileURL.path,
                          report: URL(fileURLWithPath: options["--report"]!).standardizedFileURL.path, mqtt: options["--mqtt"] == "on")

func finish(_ status: Int32) -> Never {
    let left = drive.cleanUp(keepLogs: status != 0)
    if left.isEmpty {
        Console.show("\ncleaned up: every process the demo started has exited (\(String(format: "%.0f", -started.timeIntervalSinceNow)) s in all)")
    } else {
        Console.show("\nstill running after the clean-up: \(left.joined(separator: ", "))")
    }
    exit(left.isEmpty ? status : 1)
}

var interrupts: [any DispatchSourceSignal] = []
for number in [SIGINT, SIGTERM] {
    signal(number, SIG_IGN)
    let source = DispatchSource.makeSignalSource(signal: number, queue: .main)
    source.setEventHandler { finish(128 + number) }
    source.resume()
    interrupts.append(source)
}

do {
    try await drive.run()
    finish(0)
} catch {
    Console.show("\nwaymark-demo failed: \(error)\nthe peers' logs are kept in \(drive.work.path)")
    finish(1)
}
