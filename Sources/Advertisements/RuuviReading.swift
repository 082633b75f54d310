/// RuuviTag RAWv2 (data format 5), company 0x0499. Every field is nil when
/// the tag sends its "not available" value.
public struct RuuviReading: Sendable, Hashable, Encodable {
    public struct Acceleration: Sendable, Hashable, Encodable {
        /// In g (standard gravity).
        public var x: Double?
        public var y: Double?
        public var z: Double?

        enum CodingKeys: String, CodingKey { case x, y, z }

        /// Unavailable axes are written as null, not left out.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(x, forKey: .x)
            try container.encode(y, forKey: .y)
            try container.encode(z, forKey: .z)
        }
    }

    // The payload's fields as sent; the readings below are computed from them
    // on demand, which keeps the decoded value small and decoding cheap.
    private let rawTemperature: UInt16
    private let rawHumidity: UInt16
    private let rawPressure: UInt16
    private let rawAcceleration: (UInt16, UInt16, UInt16)
    private let rawPower: UInt16
    private let rawMovement: UInt8
    private let rawSequence: UInt16
    public let macBytes: ByteString?

    public var temperatureCelsius: Double? { Self.signed(rawTemperature, 0.005) }
    public var humidityPercent: Double? { rawHumidity == 0xFFFF ? nil : (Double(rawHumidity) * 0.0025 * 10000).rounded() / 10000 }
    public var pressurePascal: Int? { rawPressure == 0xFFFF ? nil : Int(rawPressure) + 50000 }
    public var accelerationG: Acceleration {
        Acceleration(x: Self.signed(rawAcceleration.0, 0.001), y: Self.signed(rawAcceleration.1, 0.001), z: Self.signed(rawAcceleration.2, 0.001))
    }
    public var batteryVolts: Double? { rawPower >> 5 == 0x7FF ? nil : (Double(rawPower >> 5) + 1600) / 1000 }
    public var txPowerDBm: Int? { rawPower & 0x1F == 0x1F ? nil : Int(rawPower & 0x1F) * 2 - 40 }
    public var movementCounter: Int? { rawMovement == 0xFF ? nil : Int(rawMovement) }
    public var measurementSequence: Int? { rawSequence == 0xFFFF ? nil : Int(rawSequence) }
    /// The tag's own MAC from the payload, which survives address changes.
    public var mac: String? { macBytes?.mac }

    public static func == (lhs: RuuviReading, rhs: RuuviReading) -> Bool {
        lhs.rawTemperature == rhs.rawTemperature && lhs.rawHumidity == rhs.rawHumidity && lhs.rawPressure == rhs.rawPressure
            && lhs.rawAcceleration == rhs.rawAcceleration && lhs.rawPower == rhs.rawPower && lhs.rawMovement == rhs.rawMovement
            && lhs.rawSequence == rhs.rawSequence && lhs.macBytes == rhs.macBytes
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(rawTemperature)
        hasher.combine(rawSequence)
        hasher.combine(macBytes)
    }

    private static func signed(_ raw: UInt16, _ scale: Double) -> Double? {
        raw == 0x8000 ? nil : (Double(Int16(bitPattern: raw)) * scale * 1000).rounded() / 1000
    }

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
        func u16() -> UInt16 { UInt16(truncatingIfNeeded: reader.bigEndian(2) ?? 0) }
        rawTemperature = u16()
        rawHumidity = u16()
        rawPressure = u16()
        rawAcceleration = (u16(), u16(), u16())
        rawPower = u16()
        rawMovement = reader.u8() ?? 0xFF
        rawSequence = u16()
        let address = reader.byteString(6)
        macBytes = address.flatMap { $0.isAllOnes ? nil : $0 }
    }
}
