import Foundation

/// Figures printed by the bench: each with its unit, and where there is a
/// baseline measured in the same run, the ratio against it.
struct BenchReport {
    /// Encoded as is: optionals that are nil are left out.
    struct Figure: Encodable {
        var name: String, value: Double, unit: String
        /// A baseline measured in the same run, its name, and `value / baseline`.
        var baseline: Double?, baselineName: String?, ratio: Double?
        var note: String?

        enum CodingKeys: String, CodingKey { case name, value, unit, baseline, baselineName = "baseline_name", note, ratio }
    }

    var figures: [Figure] = []

    mutating func add(_ name: String, _ value: Double, unit: String, baseline: Double? = nil, baselineName: String? = nil, note: String? = nil) {
        figures.append(Figure(name: name, value: value, unit: unit, baseline: baseline, baselineName: baselineName,
                              ratio: baseline.map { $0 > 0 ? value / $0 : 0 }, note: note))
    }

    /// A figure measured in several runs: the median, with every run's
    /// figure (and the baseline's, measured in the same runs) in the note.
    mutating func add(_ name: String, runs: [Double], unit: String, baselineRuns: [Double] = [], baselineName: String? = nil, note: String) {
        func list(_ values: [Double]) -> String { values.map(Self.format).joined(separator: ", ") }
        let runsNote = "runs: " + list(runs) + (baselineRuns.isEmpty ? "" : "; \(baselineName ?? "baseline") runs: " + list(baselineRuns))
        add(name, Self.median(runs), unit: unit, baseline: baselineRuns.isEmpty ? nil : Self.median(baselineRuns),
            baselineName: baselineName, note: note + "; median of \(runs.count), " + runsNote)
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }

    var text: String {
        figures.map { figure in
            var line = figure.name.padding(toLength: 30, withPad: " ", startingAt: 0) + Self.format(figure.value) + " " + figure.unit
            if let baseline = figure.baseline, let ratio = figure.ratio {
                line += "   vs \(figure.baselineName ?? "baseline") \(Self.format(baseline)) \(figure.unit): \(String(format: "%.2f", ratio))×"
            }
            if let note = figure.note { line += "   (\(note))" }
            return line
        }.joined(separator: "\n")
    }

    var json: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        return String(decoding: (try? encoder.encode(["figures": figures])) ?? Data(), as: UTF8.self)
    }

    /// A figure as printed: whole from 100, two decimals from 1, three below.
    static func format(_ value: Double) -> String {
        value >= 100 ? String(Int(value.rounded())) : String(format: value >= 1 ? "%.2f" : "%.3f", value)
    }
}

enum ResourceUsage {
    /// User plus system CPU time of this process, all threads, in seconds.
    static var cpuSeconds: Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }

    /// VmHWM of this process, in MiB.
    static var residentMegabytes: Double { field("VmHWM:", of: "self") }

    /// VmRSS of another process (0 once it is gone), in MiB.
    static func residentMegabytes(of pid: pid_t) -> Double { field("VmRSS:", of: String(pid)) }

    private static func field(_ name: String, of process: String) -> Double {
        let status = (try? String(contentsOfFile: "/proc/\(process)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix(name) } ?? ""
        let kilobytes = Double(line.split(separator: " ").dropFirst().first ?? "0") ?? 0
        return kilobytes / 1024
    }
}

/// Seconds taken by `body`, on the monotonic clock.
func measure(_ body: () async throws -> Void) async rethrows -> Double {
    let start = ContinuousClock.now
    try await body()
    return seconds(ContinuousClock.now - start)
}

func measure(_ body: () throws -> Void) rethrows -> Double {
    let start = ContinuousClock.now
    try body()
    return seconds(ContinuousClock.now - start)
}

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}
