import FoundationEssentials
import Pairings
import Vocabulary

/// The live table `waymark scan` redraws on a terminal: one row per device
/// (by identity when it has one, else by address), strongest first.
struct ScanTable {
    private(set) var rows: [String: DecodedSighting] = [:]
    /// Rows kept at most; the longest-unseen go first.
    let capacity = 200

    mutating func add(_ sighting: DecodedSighting) {
        rows[sighting.identity?.description ?? sighting.address] = sighting
        if rows.count > capacity, let oldest = rows.min(by: { $0.value.time < $1.value.time })?.key { rows[oldest] = nil }
    }

    func render(now: Date, width: Int = 120) -> String {
        var lines = [pad("ADDRESS", 18) + pad("FORMAT", 15) + pad("RSSI", 6) + pad("SEEN", 6) + "IDENTITY / READINGS"]
        let sorted = rows.values.sorted { ($0.rssi ?? -999, $0.address) > ($1.rssi ?? -999, $1.address) }
        for row in sorted {
            let age = max(0, Int(now.timeIntervalSince(row.time)))
            let detail = [row.pairing.map { "PAIRED \($0.label):" }, row.identity?.description, row.summary.isEmpty ? nil : row.summary].compactMap { $0 }
                .joined(separator: "  ")
            let line = pad(row.address, 18) + pad(row.format, 15) + pad(row.rssi.map(String.init) ?? "-", 6) + pad("\(age)s", 6) + detail
            lines.append(String(line.prefix(width)))
        }
        return lines.joined(separator: "\n")
    }

    private func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? String(text.prefix(width - 1)) + " " : text + String(repeating: " ", count: width - text.count)
    }
}
