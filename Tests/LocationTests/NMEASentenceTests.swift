import Basics
import Foundation
import Location
import PeerHarness
import Testing

struct NMEASentenceTests {
    static func log(_ name: String) throws -> String {
        let url = try #require(Bundle.module.url(forResource: name, withExtension: nil, subdirectory: "gpsd"))
        return try String(contentsOf: url, encoding: .utf8)
    }

    static let receiverLogs = ["bu353s4.log", "mtk-3301.log", "nl2008u.log", "quectel-l76k-nmea.log", "sirfstarv-nmea.log", "tr737A+.log"]

    @Test func readsTheFieldsOfARealSentence() throws {
        let rmc = try NMEASentence("$GNRMC,091232.000,A,4813.0535,N,00824.8697,E,0.00,0.00,101015,,,A,V*06\r\n")
        #expect(rmc.talker == "GN")
        #expect(rmc.type == "RMC")
        #expect(rmc[1] == "A")
        #expect(rmc[9] == nil)
        #expect(abs(try #require(rmc.coordinate(2, hemisphere: 3, limit: 90)) - 48.217558333) < 5e-10)
        #expect(abs(try #require(rmc.coordinate(4, hemisphere: 5, limit: 180)) - 8.414495) < 5e-10)
        #expect(rmc.timeOfDay(0) == 33152.0)
        #expect(rmc.checksummed)
        // Some proprietary sentences come without a checksum, as gpsd accepts.
        #expect(try NMEASentence("$POLYN,TIME,RESTART_OCCURRED").checksummed == false)
    }

    @Test(arguments: [
        ("$GNRMC,091232.000,A*00", NMEASentence.Problem.badChecksum(expected: 0x01, found: 0x00)),
        ("$GNRMC,091232.000,A*5", .malformedChecksum),
        ("$GNRMC,091232.000,A*5G", .malformedChecksum),
        ("GNRMC,091232.000,A*55", .notASentence),
        ("$G*47", .notASentence),
    ])
    func refusesBrokenSentencesWithTheReason(_ line: String, _ problem: NMEASentence.Problem) {
        #expect(throws: problem) { _ = try NMEASentence(Substring(line)) }
    }

    @Test(arguments: receiverLogs)
    func everySentenceOfARealReceiverLogParses(_ name: String) throws {
        let lines = try Self.log(name).split(whereSeparator: \.isNewline).filter { $0.hasPrefix("$") }
        var failures: [String] = []
        for line in lines {
            do { _ = try NMEASentence(line) } catch { failures.append("\(line): \(error)") }
        }
        #expect(!lines.isEmpty)
        #expect(failures.isEmpty, "\(failures.prefix(3))")
    }

    /// The Trimble RTK positions with eight decimals of minutes, where naive
    /// arithmetic drifts: each RMC (gpsd reports a TPV for every one here)
    /// must give exactly gpsd's lat and lon.
    @Test func coordinatesMatchGpsdOnTheFuzzyArithmeticCases() throws {
        let log = try Self.log("nmea-fuzzy-cases.log")
        let check = try Self.log("nmea-fuzzy-cases.log.chk")
        let positions: [(Double, Double)] = check.split(whereSeparator: \.isNewline).compactMap { line in
            guard line.contains(#""class":"TPV""#),
                  let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  let lat = object["lat"] as? Double, let lon = object["lon"] as? Double else { return nil }
            return (lat, lon)
        }
        var compared = 0
        for line in log.split(whereSeparator: \.isNewline) where line.hasPrefix("$GPRMC") {
            let sentence = try NMEASentence(line)
            let lat = try #require(sentence.coordinate(2, hemisphere: 3, limit: 90))
            let lon = try #require(sentence.coordinate(4, hemisphere: 5, limit: 180))
            // gpsd prints nine decimals: equal within half a unit of the last
            // one (these cases sit exactly on the .5 boundary).
            #expect(positions.contains { abs($0.0 - lat) <= 5.1e-10 && abs($0.1 - lon) <= 5.1e-10 }, "\(line)")
            compared += 1
        }
        #expect(compared == log.split(whereSeparator: \.isNewline).filter { $0.hasPrefix("$GPRMC") }.count)
    }

    @Test func linesSplitAnywhereAreReassembled() throws {
        let text = try Self.log("nl2008u.log")
        let expected = text.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
        var rng = SplitMix64(seed: 11)
        for _ in 0..<50 {
            var buffer = LineBuffer(limit: 4096)
            var lines: [String] = []
            var bytes = Array(text.utf8)[...]
            while !bytes.isEmpty {
                let take = Int.random(in: 1...40, using: &rng)
                lines += buffer.append(bytes.prefix(take)).map { String(decoding: $0, as: UTF8.self) }
                bytes = bytes.dropFirst(take)
            }
            #expect(lines == expected)
        }
    }

    @Test func overlongLinesAreDroppedAndCounted() {
        var buffer = LineBuffer(limit: 20)
        let lines = buffer.append(Array((String(repeating: "x", count: 50) + "\n$GPTXT*00\n").utf8)).map { String(decoding: $0, as: UTF8.self) }
        #expect(lines == ["$GPTXT*00"])
        #expect(buffer.overlong == 1)
    }

    @Test func aMillionRandomLinesNeverCrashTheParserOrTheAssembler() async throws {
        var rng = SplitMix64(seed: 0x4E4D4541)
        let seeds = try Self.receiverLogs.flatMap { try Self.log($0).split(whereSeparator: \.isNewline).filter { $0.hasPrefix("$") }.map { Array($0.utf8) } }
        var parsed = 0
        var assembler = NMEAFixAssembler()
        for round in 0..<1_000_000 {
            // Long CPU loops share the test runner's few threads with async tests.
            if round % 1000 == 0 { await Task.yield() }
            var bytes: [UInt8]
            if round % 2 == 0 {
                bytes = seeds[Int.random(in: 0..<seeds.count, using: &rng)]
                for _ in 0..<Int.random(in: 0...3, using: &rng) where !bytes.isEmpty {
                    bytes[Int.random(in: 0..<bytes.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
                }
            } else {
                // Random bytes, eight at a time from the generator.
                bytes = [UInt8(ascii: "$")]
                for _ in 0..<Int(rng.next() % 12) { withUnsafeBytes(of: rng.next()) { bytes += $0 } }
            }
            guard let sentence = try? NMEASentence(utf8: bytes) else { continue }
            parsed += 1
            _ = sentence.coordinate(1, hemisphere: 2, limit: 90)
            _ = sentence.timeOfDay(0)
            _ = sentence.double(5)
            _ = assembler.add(sentence)
        }
        // Unmutated seeds (about a sixth of the even rounds) must still parse.
        #expect(parsed > 50_000)
    }
}
