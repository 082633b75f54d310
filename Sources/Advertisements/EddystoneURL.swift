/// Eddystone-URL (frame 0x10): a compressed URL, expanded here.
public struct EddystoneURL: Sendable, Hashable, Encodable {
    /// Calibrated RSSI at 0 m, in dBm.
    public var txPowerDBm: Int8
    public var url: String

    enum CodingKeys: String, CodingKey {
        case txPowerDBm = "tx_power_dbm", url
    }

    static let schemes = ["http://www.", "https://www.", "http://", "https://"]
    static let expansions = [".com/", ".org/", ".edu/", ".net/", ".info/", ".biz/", ".gov/",
                             ".com", ".org", ".edu", ".net", ".info", ".biz", ".gov"]

    init?(_ frame: [UInt8]) {
        var reader = ByteReader(frame, offset: 1)
        guard let power = reader.u8(), let scheme = reader.u8(), Int(scheme) < Self.schemes.count else { return nil }
        var url = Self.schemes[Int(scheme)]
        while let byte = reader.u8() {
            if Int(byte) < Self.expansions.count {
                url += Self.expansions[Int(byte)]
            } else if (0x21...0x7E).contains(byte) {
                url.append(Character(UnicodeScalar(byte)))
            } else {
                return nil
            }
        }
        self.txPowerDBm = Int8(bitPattern: power)
        self.url = url
    }
}
