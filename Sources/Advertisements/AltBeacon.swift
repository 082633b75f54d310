/// AltBeacon: any company id, beacon code 0xBEAC, a 20-byte beacon id
/// (read as a 16-byte UUID plus major and minor, as the reference
/// implementation does).
public struct AltBeacon: Sendable, Hashable, Encodable {
    public var companyID: UInt16
    public var uuidBytes: ByteString
    public var uuid: String { uuidBytes.uuid }
    public var major: UInt16
    public var minor: UInt16
    /// Calibrated RSSI at 1 m, in dBm.
    public var referenceRSSIDBm: Int8
    public var manufacturerReserved: UInt8

    enum CodingKeys: String, CodingKey {
        case companyID = "company_id", uuid, major, minor
        case referenceRSSIDBm = "reference_rssi_dbm"
        case manufacturerReserved = "manufacturer_reserved"
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(companyID, forKey: .companyID)
        try container.encode(uuid, forKey: .uuid)
        try container.encode(major, forKey: .major)
        try container.encode(minor, forKey: .minor)
        try container.encode(referenceRSSIDBm, forKey: .referenceRSSIDBm)
        try container.encode(manufacturerReserved, forKey: .manufacturerReserved)
    }

    init?(companyID: UInt16, _ payload: [UInt8]) {
        guard payload.count >= 24, payload[0] == 0xBE, payload[1] == 0xAC else { return nil }
        var reader = ByteReader(payload, offset: 2)
        guard let uuid = reader.byteString(16), let major = reader.bigEndian(2), let minor = reader.bigEndian(2),
              let rssi = reader.u8(), let reserved = reader.u8() else { return nil }
        self.companyID = companyID
        self.uuidBytes = uuid
        self.major = UInt16(major)
        self.minor = UInt16(minor)
        self.referenceRSSIDBm = Int8(bitPattern: rssi)
        self.manufacturerReserved = reserved
    }
}
