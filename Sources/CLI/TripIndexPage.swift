import Basics
import FoundationEssentials
import Store
import Vocabulary

/// `report --all`'s index.html: every trip, newest first, each linking to
/// its report beside it.
struct TripIndexPage {
    let reports: [TripReport]
    let written: Double

    static func file(of trip: TripID) -> String {
        // Trip ids are `trip-` and digits; anything else is kept to a safe file name.
        "report-" + String(trip.rawValue.unicodeScalars.map { $0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-" ? Character($0) : "_" }) + ".html"
    }

    var html: String {
        let rows = reports.reversed().map { report in
            let summary = TripSummary(report)
            let trip = report.trip
            return "<tr><td><a href=\"\(Self.file(of: trip.id).markupEscaped)\">\(trip.id.rawValue.markupEscaped)</a></td>"
                + "<td>\(TripReportPage.clock(trip.start.timeIntervalSince1970))</td><td>\(summary.duration.map(TripReportPage.duration) ?? "open")</td>"
                + "<td>\(TripReportPage.distance(trip.distanceMeters))</td><td>\(summary.beaconLine.markupEscaped)</td><td>\(summary.uploadLine.markupEscaped)</td></tr>"
        }
        return """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>Waymark trips</title>
            <style>
            body { font: 14px/1.4 system-ui, sans-serif; margin: 16px; color: #222; background: #fff; }
            table { border-collapse: collapse; } td, th { border-bottom: 1px solid #eee; padding: 3px 8px; text-align: left; }
            </style></head><body>
            <h1>Waymark trips</h1>
            <table id="trips"><tr><th>trip</th><th>start</th><th>duration</th><th>distance</th><th>beacon</th><th>uploads</th></tr>
            \(rows.joined(separator: "\n"))
            </table>
            <p>\(reports.count) trips. Written by waymark \(Waymark.version) at \(CivilTime.iso8601(written)).</p>
            </body></html>

            """
    }
}
