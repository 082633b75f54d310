/// Eddystone-UID (frame 0x00): a 10-byte namespace and 6-byte instance.
public struct EddystoneUID: Sendable, Hashable, Encodable {
    /// Calibrated RSSI at 0 m, in dBm.
    public var txPowerDBm: Int8
    public var namespaceBytes: ByteString
    public var instanceBytes: ByteString
    /// 20 uppercase hex digits.
    public var namespace: String { namespaceBytes.hex.uppercased() }
    /// 12 uppercase hex digits.
    public var instance: String { instanceBytes.hex.uppercased() }

    enum CodingKeys: String, CodingKey {
        case txPowerDBm = "tx_power_dbm", namespace, instance
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(txPowerDBm, forKey: .txPowerDBm)
        try container.encode(namespace, forKey: .namespace)
        try container.encode(instance, forKey: .instance)
    }

    init?(_ frame: [UInt8]) {
        var reader = ByteReader(frame, offset: 1)
        guard let power = reader.u8(), let namespace = reader.byteString(10), let instance = reader.byteString(6) else { return nil }
        self.txPowerDBm = Int8(bitPattern: power)
        self.namespaceBytes = namespace
        self.instanceBytes = instance
    }
}
