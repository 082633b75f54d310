import Location
import Telemetry
import Testing

/// What fuzzing found in libgps 3.22: reports on which `gps_unpack` never
/// returns. Each is decoded in one pass, and the decoder goes on working.
extension GPSDReportTests {
    @Test(arguments: [
        // A DEVICES report cut inside its array.
        #"{"class":"DEVICES","devices":[{"class":"DEVICE","path":"/dev/ttyACM0","a"#,
        // A stray byte after an element of the array.
        #"{"class":"DEVICES","devices":[{"class":"DEVICE","path":"/dev/ttyACM0","driver":"NMEA0183"}=]}"#,
        // Well-formed, but with a key libgps does not know holding the array.
        #"{"class":"DEVICES","devic)c3(es":[{"class":"DEVICE","path":"/dev/ttyACM0","driver#iM-QE":"NMEA0183"}]}"#,
        // A key longer than gpsd's JSON_ATTR_MAX.
        #"{"class":"DEVICES","devices":[{"class":"DEVICE","drive3627867494792379821250821392913110290848237r":"NMEA0183"}]}"#,
    ])
    func reportsThatHangLibgpsAreDecodedInOnePass(_ line: String) throws {
        let decoder = GPSDDecoder()
        // Before the fix this call never returned.
        #expect(try decoder.decode(Array(line.utf8)) == .devices([]))
        let tpv = try decoder.decode(Array(#"{"class":"TPV","device":"/dev/ttyACM0","mode":3,"lat":48.217558333,"lon":8.414495}"#.utf8))
        guard case .tpv(let fix, "/dev/ttyACM0") = tpv else {
            Issue.record("\(tpv)")
            return
        }
        #expect(fix.mode == 3 && fix.lat == 48.217558333 && fix.lon == 8.414495)
    }
}
