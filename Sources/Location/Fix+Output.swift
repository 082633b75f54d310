internal import Basics
public import Telemetry
extension Fix {
    /// One line of JSON with gpsd's TPV names and units; absent fields are left out.
    public var json: String {
        var bytes = Array(#"{"class":"TPV","#.utf8)
        SampleEncoder.appendMembers(self, to: &bytes)
        return String(decoding: bytes + [UInt8(ascii: "}")], as: UTF8.self)
    }

    /// One human line: time, fix kind, position, altitude, speed, course, satellites.
    public var summary: String {
        var parts = [time.map(CivilTime.iso8601) ?? "no time", ["no fix", "no fix", "2D", "3D"][mode]]
        if let lat, let lon { parts.append("\(JSONText.fixed(lat, 7)) \(JSONText.fixed(lon, 7))") }
        if let altMSL { parts.append("alt \(JSONText.fixed(altMSL, 1)) m") }
        if let speed { parts.append("\(JSONText.fixed(speed, 2)) m/s") }
        if let track { parts.append("track \(JSONText.fixed(track, 1))°") }
        if let satellitesUsed { parts.append("sats \(satellitesUsed)\(satellitesSeen.map { "/\($0)" } ?? "")") }
        return parts.joined(separator: "  ")
    }
}
