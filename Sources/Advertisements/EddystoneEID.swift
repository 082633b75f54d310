/// Eddystone-EID (frame 0x30): an ephemeral id that rotates; recognised, not
/// resolved (resolving needs the beacon's identity key).
public struct EddystoneEID: Sendable, Hashable, Encodable {
    /// Calibrated RSSI at 0 m, in dBm.
    public var txPowerDBm: Int8
    /// 16 lowercase hex digits.
    public var ephemeralID: String

    enum CodingKeys: String, CodingKey {
        case txPowerDBm = "tx_power_dbm", ephemeralID = "ephemeral_id"
    }

    init?(_ frame: [UInt8]) {
        var reader = ByteReader(frame, offset: 1)
        guard let power = reader.u8(), let eid = reader.take(8) else { return nil }
        self.txPowerDBm = Int8(bitPattern: power)
        self.ephemeralID = Hex.string(eid)
    }
}
