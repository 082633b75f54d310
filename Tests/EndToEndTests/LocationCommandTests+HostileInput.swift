import Foundation
import PeerHarness
import Testing

/// `gps --nmea` on what a noisy receiver or a careless copy produces.
extension LocationCommandTests {
    /// Sentences right at the length limit, and either side of it, with and
    /// without a checksum: none may trap the parser.
    @Test func sentencesAtEveryLengthAroundTheLimitAreParsedOrSkipped() throws {
        let work = try TemporaryDirectory()
        defer { work.remove() }
        var capture = PseudoTerminal.sentence("GPRMC,120000.00,A,4813.0535,N,00824.8697,E,10.0,90.0,301126,,,A")
        for length in 240...270 {
            // `$` + body + `*hh` is length bytes: pad the body's last field.
            let head = "GPRMC,120001.00,A,4813.0535,N,00824.8697,E,10.0,90.0,301126,,,"
            capture += PseudoTerminal.sentence(head + String(repeating: "0", count: max(0, length - 4 - head.count)))
            capture += "$GPRMC," + String(repeating: "0", count: length - 7) + "\r\n"
        }
        capture += PseudoTerminal.sentence("GPRMC,120002.00,A,4813.0535,N,00824.8697,E,10.0,90.0,301126,,,A")
        try capture.write(toFile: work.file("long.nmea"), atomically: true, encoding: .utf8)
        let result = try WaymarkBinary.run(["gps", "--nmea", work.file("long.nmea"), "--json"], in: work)
        #expect(result.status == 0, "\(result.output.suffix(400))")
        #expect(try Self.tpvs(result.output).count == 3)
    }

    /// A capture is streamed: memory does not grow with the file, and
    /// `--count` stops the reading. The baseline is the same command on a
    /// tiny capture, measured in the same run.
    @Test func aLargeCaptureIsStreamedInBoundedMemory() throws {
        let work = try TemporaryDirectory()
        defer { work.remove() }
        let fix = PseudoTerminal.sentence("GPRMC,120000.00,A,4813.0535,N,00824.8697,E,10.0,90.0,301126,,,A")
        try fix.write(toFile: work.file("tiny.nmea"), atomically: true, encoding: .utf8)
        // 48 MiB: a fix, then one endless line of noise with no newline, then a fix.
        let noise = Data(repeating: UInt8(ascii: "7"), count: 48 << 20)
        let later = PseudoTerminal.sentence("GPRMC,120001.00,A,4813.0535,N,00824.8697,E,10.0,90.0,301126,,,A")
        #expect(FileManager.default.createFile(atPath: work.file("big.nmea"), contents: Data(fix.utf8) + noise + Data(("\n" + later).utf8)))

        let tiny = try WaymarkBinary.start(["gps", "--nmea", work.file("tiny.nmea")], in: work)
        #expect(try tiny.wait(timeout: 30) == 0)
        let whole = try WaymarkBinary.start(["gps", "--nmea", work.file("big.nmea"), "--json"], in: work)
        #expect(try whole.wait(timeout: 120) == 0)
        let first = try WaymarkBinary.start(["gps", "--nmea", work.file("big.nmea"), "--count", "1"], in: work)
        #expect(try first.wait(timeout: 30) == 0)

        let baseline = try #require(tiny.maxResidentKiB), streamed = try #require(whole.maxResidentKiB)
        #expect(streamed < baseline + 8 * 1024, "48 MiB file: \(streamed) KiB resident against \(baseline) KiB for one line")
        #expect(try Self.tpvs(whole.output).count == 2, "both fixes around the noise")
        #expect(whole.output.contains("1 overlong lines"))
        #expect(try #require(first.maxResidentKiB) < baseline + 8 * 1024)
    }
}
