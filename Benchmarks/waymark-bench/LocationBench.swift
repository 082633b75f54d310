import Foundation
import Location
import Peers

/// NMEA sentences and gpsd JSON reports parsed per second, each against a
/// Python baseline on the same lines in the same run: pynmea2 (PyPI) for
/// NMEA, gpsd's own Python client (Debian python3-gps) for JSON.
struct LocationBench {
    var quick: Bool
    /// The receiver logs, as shipped with the tests.
    static let logs = "Tests/LocationTests/gpsd"

    func run(into report: inout BenchReport) throws {
        let directory = try TemporaryDirectory("waymark-bench-location")
        defer { directory.remove() }
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.logs).sorted()
        func lines(_ keep: (String) -> Bool) throws -> [String] {
            try files.filter(keep).flatMap { name in
                try String(contentsOfFile: Self.logs + "/" + name, encoding: .isoLatin1).split(whereSeparator: \.isNewline).map(String.init)
            }
        }
        let sentences = try lines { $0.hasSuffix(".log") && !$0.hasPrefix("ublox") && $0 != "tcp-torture.log" }.filter { $0.hasPrefix("$") }
        let reports = try lines { $0.hasSuffix(".chk") }.filter { $0.hasPrefix("{") }
        let venv = try? PythonPeers.environment()

        let target = quick ? 200_000 : 2_000_000
        let nmea = sentences.map { Array($0.utf8) }
        var parsed = 0
        var assembler = NMEAFixAssembler()
        let passes = max(1, target / nmea.count)
        let nmeaSeconds = measure {
            for _ in 0..<passes {
                for line in nmea {
                    guard let sentence = try? NMEASentence(utf8: line) else { continue }
                    parsed += 1
                    _ = assembler.add(sentence)
                }
            }
        }
        let nmeaFile = directory.file("sentences.nmea")
        try sentences.joined(separator: "\n").write(toFile: nmeaFile, atomically: true, encoding: .isoLatin1)
        let pynmea = venv.flatMap { try? PythonPeers.rate(python: $0 + "/bin/python", script: "location_peer.py", ["nmea", nmeaFile], in: directory) }
        report.add("nmea.parse", Double(nmea.count * passes) / nmeaSeconds, unit: "sentences/s", baseline: pynmea, baselineName: "pynmea2",
                   note: pynmea == nil ? "baseline unavailable: \(PythonPeers.lastProblem)" : "\(nmea.count) real sentences, checksum + fields + epoch assembly, \(parsed / passes) valid")

        let json = reports.map { Array($0.utf8) }
        var decoded = 0
        let jsonPasses = max(1, (quick ? 50_000 : 300_000) / json.count)
        var merger = GPSDFixAssembler()
        let decoder = GPSDDecoder()
        let jsonSeconds = measure {
            for _ in 0..<jsonPasses {
                for line in json {
                    guard let report = try? decoder.decode(line) else { continue }
                    decoded += 1
                    if case .tpv(let fix, _) = report { _ = merger.add(fix) }
                }
            }
        }
        let jsonFile = directory.file("reports.json")
        try reports.joined(separator: "\n").write(toFile: jsonFile, atomically: true, encoding: .utf8)
        let client = try? PythonPeers.rate(python: "/usr/bin/python3", script: "location_peer.py", ["json", jsonFile], in: directory)
        report.add("gpsd.json", Double(json.count * jsonPasses) / jsonSeconds, unit: "reports/s", baseline: client, baselineName: "gps.client (python3-gps)",
                   note: client == nil ? "baseline unavailable: \(PythonPeers.lastProblem)" : "\(json.count) lines of gpsd output (TPV, SKY, ATT, IMU, …), \(decoded / jsonPasses) decoded")
    }
}
