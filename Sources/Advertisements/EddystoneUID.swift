/// Eddystone-UID (frame 0x00): a 10-byte namespace and 6-byte instance.
public struct EddystoneUID: Sendable, Hashable, Codable {
    /// Calibrated RSSI at 0 m, in dBm.
    public var txPowerDBm: Int8
    /// 20 uppercase hex digits.
    public var namespace: String
    /// 12 uppercase hex digits.
    public var instance: String

    enum CodingKeys: String, CodingKey {
        case txPowerDBm = "tx_power_dbm", namespace, instance
    }

    init?(_ frame: [UInt8]) {
        var reader = ByteReader(frame, offset: 1)
        guard let power = reader.u8(), let namespace = reader.take(10), let instance = reader.take(6) else { return nil }
        self.txPowerDBm = Int8(bitPattern: power)
        self.namespace = Hex.string(namespace).uppercased()
        self.instance = Hex.string(instance).uppercased()
    }
}
