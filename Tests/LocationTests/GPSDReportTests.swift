import Basics
import Foundation
import Location
import PeerHarness
import Telemetry
import Testing

struct GPSDReportTests {
    static func report(_ text: String) throws -> GPSDReport {
        try GPSDDecoder().decode(Array(text.utf8))
    }

    /// Lines as gpsd 3.22 on Debian 12 writes them, one of each class we use.
    @Test func decodesEachClassGpsdSends() throws {
        #expect(try Self.report(#"{"class":"VERSION","release":"3.22","rev":"3.22","proto_major":3,"proto_minor":14}"#) == .version(release: "3.22"))
        #expect(try Self.report(#"{"class":"DEVICES","devices":[{"class":"DEVICE","path":"/dev/pts/1","activated":"2026-11-30T13:52:51.496Z","native":0,"bps":4800}]}"#)
            == .devices(["/dev/pts/1"]))
        #expect(try Self.report(#"{"class":"WATCH","enable":true,"json":true,"nmea":false}"#) == .watch)
        #expect(try Self.report(#"{"class":"DEVICE","path":"/dev/ttyACM0","activated":0}"#) == .device(path: "/dev/ttyACM0", active: false))
        #expect(try Self.report(#"{"class":"DEVICE","path":"/dev/ttyACM0","driver":"u-blox","activated":"2026-11-30T13:52:51.500Z"}"#)
            == .device(path: "/dev/ttyACM0", active: true))
        #expect(try Self.report(#"{"class":"ERROR","message":"Unrecognized request 'FOO'"}"#) == .error(message: "Unrecognized request 'FOO'"))
        #expect(try Self.report(#"{"class":"IMU","device":"/dev/ttyACM0","time":"2019-01-01T00:00:00.000Z"}"#) == .other(class: "IMU"))
        // libgps 3.22 counts the satellites listed (and ignores nSat/uSat).
        #expect(try Self.report(#"{"class":"SKY","nSat":3,"uSat":1,"satellites":[{"PRN":7,"used":false},{"PRN":8,"used":true},{"PRN":9,"used":false}]}"#)
            == .sky(used: 1, seen: 3))

        let tpv = try Self.report(#"{"class":"TPV","device":"/dev/pts/1","mode":3,"status":2,"time":"2015-10-10T09:12:32.000Z","ept":0.005,"lat":48.217558333,"lon":8.414495000,"altHAE":813.2000,"altMSL":765.8000,"alt":765.8000,"epv":25.300,"track":10.5,"speed":1.25,"climb":-0.5,"eph":13.300}"#)
        guard case .tpv(let fix, let device) = tpv else {
            Issue.record("not a TPV: \(tpv)")
            return
        }
        #expect(device == "/dev/pts/1")
        #expect(fix.time == 1_444_468_352)
        #expect(fix.mode == 3 && fix.status == 2)
        #expect(fix.lat == 48.217558333 && fix.lon == 8.414495)
        #expect(fix.altHAE == 813.2 && fix.altMSL == 765.8)
        #expect(fix.speed == 1.25 && fix.track == 10.5 && fix.climb == -0.5)
        #expect(fix.eph == 13.3 && fix.epv == 25.3 && fix.ept == 0.005)
    }

    @Test func wrongTypesAndOutOfRangeValuesCountAsAbsent() throws {
        let tpv = try Self.report(#"{"class":"TPV","mode":"3","time":12,"lat":"48.2","lon":8.4,"speed":null,"track":[1],"altMSL":{"x":1},"status":2.5}"#)
        guard case .tpv(let fix, nil) = tpv else {
            Issue.record("not a device-less TPV: \(tpv)")
            return
        }
        #expect(fix == Fix())
        let outOfRange = try Self.report(#"{"class":"TPV","mode":7,"lat":91.0,"lon":8.4,"altHAE":NaN,"speed":"fast"}"#)
        #expect(outOfRange == .tpv(Fix(), device: nil))
    }

    @Test(arguments: ["", "{", "[]", "null", #"{"mode":3}"#, #"{"class":3}"#, #"{"class":"tpv"}"#, #"{ "class":"TPV"}"#, "\u{0}\u{1}"])
    func linesThatAreNotReportsAreRefused(_ line: String) {
        #expect(throws: GPSDReport.Problem.notAReport) { _ = try Self.report(line) }
    }

    @Test func isoTimesRoundTripAtMillisecondPrecision() {
        for seconds in [0.0, 1_444_468_352.0, 1_444_468_352.125, 951_782_400.5, 4_102_444_799.999] {
            #expect(CivilTime.parseISO8601(CivilTime.iso8601(seconds)) == seconds)
        }
        #expect(CivilTime.iso8601(1_444_468_352) == "2015-10-10T09:12:32.000Z")
        #expect(CivilTime.parseISO8601("2015-10-10T09:12:32Z") == 1_444_468_352)
        #expect(CivilTime.parseISO8601("2015-10-10T09:12:32.Z") == nil)
        #expect(CivilTime.parseISO8601("2015-10-10 09:12:32Z") == nil)
    }

    @Test func aMillionRandomLinesNeverCrashTheDecoder() async throws {
        var rng = SplitMix64(seed: 0x6770_7364)
        let decoder = GPSDDecoder()
        let seeds = try NMEASentenceTests.receiverLogs.flatMap { name in
            try NMEASentenceTests.log(name + ".chk").split(whereSeparator: \.isNewline).filter { $0.hasPrefix("{") }.map { Array($0.utf8) }
        }
        #expect(seeds.allSatisfy { (try? decoder.decode($0)) != nil }, "every line gpsd wrote decodes")
        let alphabet = Array(#"{}[]":,.-0123456789eEtruefalsnTPVclassmodelatlontime"#.utf8)
        var decoded = 0
        for round in 0..<1_000_000 {
            if round % 1000 == 0 { await Task.yield() }
            var bytes: [UInt8]
            switch round % 3 {
            case 0:
                bytes = seeds[Int.random(in: 0..<seeds.count, using: &rng)]
                for _ in 0..<Int.random(in: 1...3, using: &rng) {
                    bytes[Int.random(in: 0..<bytes.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
                }
            case 1:
                // Truncated lines, as from a connection cut mid-report.
                let seed = seeds[Int.random(in: 0..<seeds.count, using: &rng)]
                bytes = Array(seed.prefix(Int.random(in: 0..<seed.count, using: &rng)))
            default:
                bytes = (0..<Int(rng.next() % 48)).map { _ in alphabet[Int(rng.next() % UInt64(alphabet.count))] }
            }
            if (try? decoder.decode(bytes)) != nil { decoded += 1 }
        }
        // Mutations that land inside a string or a digit still decode.
        #expect(decoded > 1000)
    }
}
