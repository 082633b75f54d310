import Basics
import Foundation
import Peers

/// A GPX track as the NMEA a receiver sends while driving it, written by
/// gpsbabel: a fix every second (`interpolate`), speed and course from the
/// positions (`track,speed,course`), and the first fix moved to `start`
/// (`track,move`), so the drive plays today, at its own speed.
struct DriveLog {
    let path: String
    /// Sentences per fix in gpsbabel's output (RMC, GGA, VTG, GSA).
    let sentencesPerFix: Int
    let fixes: Int

    init(gpx: String, startingAt start: Double, in work: TemporaryDirectory) throws {
        let text = try String(contentsOfFile: gpx, encoding: .utf8)
        guard let point = text.range(of: "<trkpt"), let open = text.range(of: "<time>", range: point.upperBound..<text.endIndex),
              let close = text.range(of: "</time>", range: open.upperBound..<text.endIndex),
              let first = CivilTime.parseISO8601(text[open.upperBound..<close.lowerBound]) else {
            throw DemoError.failed("\(gpx) has no timed track point")
        }
        path = work.file("drive.nmea")
        let gpsbabel = try ChildProcess("gpsbabel", [
            "-i", "gpx", "-f", gpx, "-x", "interpolate,time=1", "-x", "track,move=+\(Int((start - first).rounded()))s,speed,course",
            "-o", "nmea", "-F", path,
        ], aptPackage: "gpsbabel", logPath: work.file("gpsbabel.log"))
        guard try gpsbabel.wait(timeout: 30) == 0 else { throw DemoError.failed("gpsbabel could not convert \(gpx): \(gpsbabel.output)") }
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        fixes = lines.count { $0.hasPrefix("$GPRMC") }
        guard fixes > 0 else { throw DemoError.failed("gpsbabel wrote no fix for \(gpx)") }
        sentencesPerFix = max(1, lines.count / fixes)
    }
}
