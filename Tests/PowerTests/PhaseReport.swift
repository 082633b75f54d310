import Foundation

/// The power-cut test's figures for one phase.
struct PhaseReport {
    var cuts = 0
    var damaged = 0
    var journalReplays = 0
    var problems = 0
    var captureFiles = 0
    var cutCaptureFiles = 0
    var beforeMigration = 0

    mutating func add(_ check: PowerCutTests.Check) {
        cuts += 1
        if check.fsckExit > 1 { damaged += 1 }
        if check.fsckExit == 1 { journalReplays += 1 }
        if !check.problems.isEmpty { problems += 1 }
        captureFiles += check.captures
        cutCaptureFiles += check.cutCaptures
        if check.migrated == false { beforeMigration += 1 }
    }

    static func table(_ reports: [String: PhaseReport], phases: [String]) -> String {
        let header = "phase       cuts  journal replayed  fsck damage  cuts with a problem  capture files (cut)  cut before the migration ended"
        return ([header] + phases.map { phase in
            let report = reports[phase] ?? PhaseReport()
            func column(_ value: Int, _ width: Int) -> String { String(repeating: " ", count: max(0, width - String(value).count)) + String(value) }
            return phase.padding(toLength: 10, withPad: " ", startingAt: 0) + column(report.cuts, 6) + column(report.journalReplays, 18)
                + column(report.damaged, 13) + column(report.problems, 21) + column(report.captureFiles, 15) + " (\(report.cutCaptureFiles))"
                + (phase == "migration" ? column(report.beforeMigration, 30) : "")
        }).joined(separator: "\n")
    }
}
