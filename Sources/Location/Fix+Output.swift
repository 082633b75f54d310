internal import Basics
extension Fix {
    /// One line of JSON with gpsd's TPV names and units; absent fields are left out.
    public var json: String {
        var fields = [#""class":"TPV""#]
        if let time { fields.append(#""time":""# + CivilTime.iso8601(time) + #"""#) }
        fields.append(#""mode":\#(mode)"#)
        if let status { fields.append(#""status":\#(status)"#) }
        for (name, value, decimals) in numbers {
            if let value { fields.append(#""\#(name)":\#(Self.fixed(value, decimals))"#) }
        }
        if let satellitesUsed { fields.append(#""uSat":\#(satellitesUsed)"#) }
        if let satellitesSeen { fields.append(#""nSat":\#(satellitesSeen)"#) }
        return "{" + fields.joined(separator: ",") + "}"
    }

    /// One human line: time, fix kind, position, altitude, speed, course, satellites.
    public var summary: String {
        var parts = [time.map(CivilTime.iso8601) ?? "no time", ["no fix", "no fix", "2D", "3D"][mode]]
        if let lat, let lon { parts.append("\(Self.fixed(lat, 7)) \(Self.fixed(lon, 7))") }
        if let altMSL { parts.append("alt \(Self.fixed(altMSL, 1)) m") }
        if let speed { parts.append("\(Self.fixed(speed, 2)) m/s") }
        if let track { parts.append("track \(Self.fixed(track, 1))°") }
        if let satellitesUsed { parts.append("sats \(satellitesUsed)\(satellitesSeen.map { "/\($0)" } ?? "")") }
        return parts.joined(separator: "  ")
    }

    /// Each number with the decimals gpsd prints it with.
    private var numbers: [(String, Double?, Int)] {
        [("lat", lat, 9), ("lon", lon, 9), ("altHAE", altHAE, 4), ("altMSL", altMSL, 4), ("speed", speed, 3),
         ("track", track, 4), ("climb", climb, 3), ("eph", eph, 3), ("epv", epv, 3), ("ept", ept, 3)]
    }

    /// Fixed-point text; values too large for it (never a real fix) fall back to Swift's form.
    private static func fixed(_ value: Double, _ decimals: Int) -> String {
        guard abs(value) < 1e9 else { return "\(value)" }
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let scaled = (abs(value) * scale).rounded()
        let whole = Int(scaled / scale)
        let fraction = String(Int(scaled) - whole * Int(scale))
        let padded = String(repeating: "0", count: max(0, decimals - fraction.count)) + fraction
        return (value < 0 ? "-" : "") + "\(whole)" + (decimals > 0 ? "." + padded : "")
    }
}
