import Basics
import Foundation
import PeerHarness

/// What the real-BlueZ VM's job left in its folder: logs, JSON from the
/// CLI, times written with `date +%s.%N`, and sample times from sqlite3.
struct VMJob {
    let folder: TemporaryDirectory

    /// A file's text; empty when the job did not write it.
    func text(_ name: String) -> String { (try? String(contentsOfFile: folder.file(name), encoding: .utf8)) ?? "" }

    /// The number a file holds (a time or a duration); nil when absent.
    func number(_ name: String) -> Double? { Double(text(name).trimmingCharacters(in: .whitespacesAndNewlines)) }

    /// One number per line (sample times from a `SELECT time …`).
    func numbers(_ name: String) -> [Double] { text(name).split(separator: "\n").compactMap { Double($0) } }

    /// When a virtual controller's log (`vhci-air.py`, in `name`) says it
    /// sent `device`'s advert: "<time> sent <address> <device> adv <rssi>".
    func advertsSent(_ name: String, by device: String) -> [Double] {
        text(name).split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ")
            return fields.count >= 5 && fields[1] == "sent" && fields[3] == device && fields[4] == "adv" ? Double(fields[0]) : nil
        }
    }

    /// The trips `trips --json` wrote to `name`, and those of them that
    /// started in or after the second written to `startedFile`; nil when
    /// the file is not a JSON array.
    func trips(_ name: String, since startedFile: String) -> (all: [[String: Any]], since: [[String: Any]])? {
        guard let all = try? JSONSerialization.jsonObject(with: Data(text(name).utf8)) as? [[String: Any]] else { return nil }
        let started = CivilTime.iso8601((number(startedFile) ?? 0).rounded(.down))
        return (all, all.filter { ($0["start"] as? String ?? "") >= started })
    }

    /// The time of an NDJSON line from `scan --json`.
    static func time(of object: [String: Any]) -> Date? {
        let parser = ISO8601DateFormatter()
        parser.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return (object["time"] as? String).flatMap(parser.date(from:))
    }

    /// A trip that has not ended.
    static func isOpen(_ trip: [String: Any]) -> Bool { trip["end"] == nil || trip["end"] is NSNull }
}
