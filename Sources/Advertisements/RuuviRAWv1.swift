/// RuuviTag RAWv1 (data format 3), which older RuuviTag firmware sends;
/// company 0x0499. The format has no "not available" values; a temperature
/// whose hundredths byte is over 99 cannot have been encoded and reads as nil.
public struct RuuviRAWv1: Sendable, Hashable, Encodable {
    /// In 0.5 % steps.
    public let humidityPercent: Double
    /// Sign and magnitude: whole degrees (bit 7 the sign), then hundredths.
    public let temperatureCelsius: Double?
    public let pressurePascal: Int
    public let accelerationG: RuuviReading.Acceleration
    public let batteryVolts: Double

    enum CodingKeys: String, CodingKey {
        case temperatureCelsius = "temperature_c", humidityPercent = "humidity_pct", pressurePascal = "pressure_pa"
        case accelerationG = "acceleration_g", batteryVolts = "battery_v"
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(temperatureCelsius, forKey: .temperatureCelsius)
        try container.encode(humidityPercent, forKey: .humidityPercent)
        try container.encode(pressurePascal, forKey: .pressurePascal)
        try container.encode(accelerationG, forKey: .accelerationG)
        try container.encode(batteryVolts, forKey: .batteryVolts)
    }

    init?(_ payload: [UInt8]) {
        guard payload.count >= 14, payload[0] == 3 else { return nil }
        var reader = ByteReader(payload, offset: 1)
        func u16() -> UInt16 { UInt16(truncatingIfNeeded: reader.bigEndian(2) ?? 0) }
        func mg() -> Double { Double(Int16(bitPattern: u16())) / 1000 }
        humidityPercent = Double(reader.u8() ?? 0) / 2
        let (whole, hundredths) = (reader.u8() ?? 0, reader.u8() ?? 0)
        let magnitude = Double(whole & 0x7F) + Double(hundredths) / 100
        temperatureCelsius = hundredths > 99 ? nil : ((whole & 0x80 == 0 ? magnitude : -magnitude) * 100).rounded() / 100
        pressurePascal = Int(u16()) + 50_000
        accelerationG = RuuviReading.Acceleration(x: mg(), y: mg(), z: mg())
        batteryVolts = Double(u16()) / 1000
    }
}
