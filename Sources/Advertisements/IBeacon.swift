/// Apple iBeacon: company 0x004C, type 0x02, length 0x15.
public struct IBeacon: Sendable, Hashable, Encodable {
    public var uuidBytes: ByteString
    /// Lowercase `8-4-4-4-12`.
    public var uuid: String { uuidBytes.uuid }
    public var major: UInt16
    public var minor: UInt16
    /// Calibrated RSSI at 1 m, in dBm.
    public var measuredPowerDBm: Int8

    enum CodingKeys: String, CodingKey {
        case uuid, major, minor
        case measuredPowerDBm = "measured_power_dbm"
    }

    static let companyID: UInt16 = 0x004C

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(uuid, forKey: .uuid)
        try container.encode(major, forKey: .major)
        try container.encode(minor, forKey: .minor)
        try container.encode(measuredPowerDBm, forKey: .measuredPowerDBm)
    }

    /// `payload` is the manufacturer data after the company id.
    init?(_ payload: [UInt8]) {
        guard payload.count >= 23, payload[0] == 0x02, payload[1] == 0x15 else { return nil }
        var reader = ByteReader(payload, offset: 2)
        guard let uuid = reader.byteString(16), let major = reader.bigEndian(2), let minor = reader.bigEndian(2), let power = reader.u8() else { return nil }
        self.uuidBytes = uuid
        self.major = UInt16(major)
        self.minor = UInt16(minor)
        self.measuredPowerDBm = Int8(bitPattern: power)
    }
}
