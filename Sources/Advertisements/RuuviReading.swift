/// RuuviTag RAWv2 (data format 5), company 0x0499. Every field is nil when
/// the tag sends its "not available" value.
public struct RuuviReading: Sendable, Hashable, Codable {
    public struct Acceleration: Sendable, Hashable, Codable {
        /// In g (standard gravity).
        public var x: Double?
        public var y: Double?
        public var z: Double?

        /// Unavailable axes are written as null, not left out.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(x, forKey: .x)
            try container.encode(y, forKey: .y)
            try container.encode(z, forKey: .z)
        }
    }

    public var temperatureCelsius: Double?
    public var humidityPercent: Double?
    public var pressurePascal: Int?
    public var accelerationG: Acceleration
    public var batteryVolts: Double?
    public var txPowerDBm: Int?
    public var movementCounter: Int?
    public var measurementSequence: Int?
    /// The tag's own MAC from the payload, which survives address changes.
    public var mac: String?

    enum CodingKeys: String, CodingKey {
        case temperatureCelsius = "temperature_c", humidityPercent = "humidity_pct", pressurePascal = "pressure_pa"
        case accelerationG = "acceleration_g", batteryVolts = "battery_v", txPowerDBm = "tx_power_dbm"
        case movementCounter = "movement_counter", measurementSequence = "measurement_sequence", mac
    }

    static let companyID: UInt16 = 0x0499

    /// Unavailable fields are written as null, so the JSON always has every key.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(temperatureCelsius, forKey: .temperatureCelsius)
        try container.encode(humidityPercent, forKey: .humidityPercent)
        try container.encode(pressurePascal, forKey: .pressurePascal)
        try container.encode(accelerationG, forKey: .accelerationG)
        try container.encode(batteryVolts, forKey: .batteryVolts)
        try container.encode(txPowerDBm, forKey: .txPowerDBm)
        try container.encode(movementCounter, forKey: .movementCounter)
        try container.encode(measurementSequence, forKey: .measurementSequence)
        try container.encode(mac, forKey: .mac)
    }

    init?(_ payload: [UInt8]) {
        guard payload.count >= 24, payload[0] == 5 else { return nil }
        var reader = ByteReader(payload, offset: 1)
        guard let temperature = reader.bigEndian(2), let humidity = reader.bigEndian(2), let pressure = reader.bigEndian(2),
              let ax = reader.bigEndian(2), let ay = reader.bigEndian(2), let az = reader.bigEndian(2),
              let power = reader.bigEndian(2), let movement = reader.u8(), let sequence = reader.bigEndian(2),
              let mac = reader.take(6) else { return nil }

        func signed(_ raw: UInt64, _ scale: Double) -> Double? {
            raw == 0x8000 ? nil : (Double(raw.signExtended(fromBytes: 2)) * scale * 1000).rounded() / 1000
        }
        temperatureCelsius = signed(temperature, 0.005)
        humidityPercent = humidity == 0xFFFF ? nil : (Double(humidity) * 0.0025 * 10000).rounded() / 10000
        pressurePascal = pressure == 0xFFFF ? nil : Int(pressure) + 50000
        accelerationG = Acceleration(x: signed(ax, 0.001), y: signed(ay, 0.001), z: signed(az, 0.001))
        let volts = power >> 5
        let tx = power & 0x1F
        batteryVolts = volts == 0x7FF ? nil : (Double(volts) + 1600) / 1000
        txPowerDBm = tx == 0x1F ? nil : Int(tx) * 2 - 40
        movementCounter = movement == 0xFF ? nil : Int(movement)
        measurementSequence = sequence == 0xFFFF ? nil : Int(sequence)
        self.mac = mac.allSatisfy { $0 == 0xFF } ? nil : macString(mac)
    }
}
