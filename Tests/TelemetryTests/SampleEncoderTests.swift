import Advertisements
import Telemetry
import Testing
import Vocabulary

struct SampleEncoderTests {
    @Test func aFixIsWrittenWithGpsdsNamesAndDecimals() {
        var fix = Fix()
        (fix.time, fix.mode, fix.status) = (1_444_468_352.5, 3, 2)
        (fix.lat, fix.lon, fix.altHAE, fix.altMSL) = (48.217558333, -8.4144950004, 812.25, 765.8)
        (fix.speed, fix.track, fix.climb) = (13.9, 271.5, -0.0004)
        (fix.eph, fix.epv, fix.ept, fix.satellitesUsed, fix.satellitesSeen) = (2.5, 4.125, 0.005, 9, 14)
        #expect(SampleEncoder.members(.fix(fix)) == #""time":"2015-10-10T09:12:32.500Z","mode":3,"status":2,"lat":48.217558333,"lon":-8.414495000,"#
            + #""altHAE":812.2500,"altMSL":765.8000,"speed":13.900,"track":271.5000,"climb":-0.000,"eph":2.500,"epv":4.125,"ept":0.005,"uSat":9,"nSat":14"#)
        #expect(SampleEncoder.members(.fix(Fix())) == #""mode":0"#)
    }

    @Test func fixedPointTextRoundsPadsAndKeepsTheSign() {
        let cases: [(Double, Int, String)] = [
            (0, 0, "0"), (0, 3, "0.000"), (1, 0, "1"), (-1, 2, "-1.00"), (0.5, 0, "1"), (-0.0004, 3, "-0.000"),
            (2.5, 3, "2.500"), (765.8, 4, "765.8000"), (48.217558333, 9, "48.217558333"), (123456.987654321, 4, "123456.9877"),
            (-3.25e-7, 9, "-0.000000325"), (1e12, 3, "1000000000000.0"), (.nan, 3, "null"), (.infinity, 3, "null"), (-.infinity, 0, "null"),
        ]
        for (value, decimals, expected) in cases {
            #expect(JSONText.fixed(value, decimals) == expected, "\(value) at \(decimals)")
            var bytes: [UInt8] = []
            JSONText.appendFixed(value, decimals, to: &bytes)
            #expect(bytes == Array(expected.utf8))
        }
    }

    @Test func eventsAndStringsAreEscapedOnce() {
        #expect(SampleEncoder.members(.event(Event(.telemetryGapDetected, [.to: "b\"\\\n\u{1}", .from: "a"])))
            == #""type":"telemetryGapDetected","from":"a","to":"b\"\\\n\u0001""#)
        #expect(SampleEncoder.object(Event(.stopped)) == "{}")
        #expect(SampleEncoder.members(.beacon(rssi: nil)) == "")
        #expect(SampleEncoder.members(.sensor("pairing-1", .unknown(.manufacturer(companyID: 0xFFFF, data: [1]))))
            == #""sensor":"pairing-1","company_id":65535,"data":"01","format":"unknown""#)
    }
}
