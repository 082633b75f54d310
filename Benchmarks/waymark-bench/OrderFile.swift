import Foundation
import Peers

/// `--order-file PATH` (`make order-file`): the functions of `waymark` that a
/// recording daemon runs, one mangled name a line, for the linker to place
/// next to each other (`--symbol-ordering-file`, see Package.swift). The
/// kernel maps a binary's code 64 KiB around each page touched, so code the
/// daemon runs, scattered among code it never runs (the CLI, the error
/// paths), keeps most of the binary resident.
///
/// The daemon runs under valgrind's callgrind, which counts every function
/// executed: through the launch bench (start-up, armed, idle), then through
/// the demo's drive (a trip, its samples and uploads). Only `waymark run`
/// processes count; the CLI's commands in the demo do not.
enum OrderFile {
    static func write(to output: String) async throws {
        let valgrind = try ChildProcess.locate("valgrind", aptPackage: "valgrind")
        let work = try TemporaryDirectory("waymark-order")
        defer { work.remove() }
        let waymark = try WaymarkBinary.named("waymark")
        let wrapper = work.file("waymark")
        try """
            #!/bin/sh
            exec \(valgrind) --tool=callgrind --demangle=no --dump-instr=no --log-file=\(work.file("valgrind.%p.log")) \
            --callgrind-out-file=\(work.file("callgrind.%p")) \(waymark) "$@"

            """.write(toFile: wrapper, atomically: true, encoding: .utf8)
        chmod(wrapper, 0o755)

        var scratch = BenchReport()
        try await LaunchBench(quick: true, binary: wrapper).run(into: &scratch)
        let demo = try ChildProcess(try WaymarkBinary.named("waymark-demo"),
                                    ["--waymark", wrapper, "--out", work.file("trip.geojson"), "--report", work.file("trip.html")],
                                    aptPackage: "(built by swift build)", logPath: work.file("demo.log"))
        guard try demo.wait(timeout: 600) == 0 else { throw PeerError.startFailed("waymark-demo", output: demo.output) }

        var names = Set<String>()
        var launches = 0, drives = 0
        for file in try FileManager.default.contentsOfDirectory(atPath: work.path) where file.hasPrefix("callgrind.") {
            let profile = try String(contentsOfFile: work.file(file), encoding: .utf8)
            guard let command = profile.split(separator: "\n").first(where: { $0.hasPrefix("cmd:") }), command.hasSuffix(" run") else { continue }
            if command.contains("/waymark-demo-") { drives += 1 } else { launches += 1 }
            names.formUnion(CallgrindProfile.functions(in: profile, object: waymark))
        }
        guard launches > 0, drives > 0, !names.isEmpty else {
            throw PeerError.startFailed("waymark run under callgrind", output: "\(launches) launch and \(drives) drive profiles, \(names.count) functions")
        }
        try (names.sorted().joined(separator: "\n") + "\n").write(toFile: output, atomically: true, encoding: .utf8)
        print("\(output): \(names.count) functions from \(launches) launches and \(drives) drive")
    }
}
