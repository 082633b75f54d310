/// NMEA 0183 sentences as a receiver writes them, for the peers that play one.
public enum NMEAText {
    /// `$BODY*CS` and CR LF, CS the XOR of the body's bytes in two hex digits.
    public static func sentence(_ body: String) -> String {
        let checksum = body.utf8.reduce(UInt8(0), ^)
        let hex = String(checksum, radix: 16, uppercase: true)
        return "$\(body)*\(checksum < 16 ? "0" : "")\(hex)\r\n"
    }
}
