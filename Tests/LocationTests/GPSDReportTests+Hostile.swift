import Location
import Testing

/// What fuzzing found in libgps 3.22: reports on which its parser never
/// returns. Each is refused, or decoded in one pass, and none hangs.
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
    func reportsThatHangLibgpsAreRefusedOrDecodedInOnePass(_ line: String) {
        // Before the fix this call never returned.
        switch Result(catching: { () throws(GPSDReport.Problem) in try GPSDDecoder().decode(Array(line.utf8)) }) {
        case .failure(let problem): #expect(problem == .malformed)
        case .success(let report): #expect(report == .devices([]), "\(report)")
        }
    }
}
