import Glibc

/// Ruuvi Air's data formats 6 (a legacy advert, 20 bytes) and E1 (an
/// extended advert, 40 bytes), company 0x0499. Every field is nil when the
/// device sends its "not available" value (the largest unsigned value, the
/// smallest signed one, every MAC bit set).
public struct RuuviAirReading: Sendable, Hashable, Encodable {
    /// `6` or `E1`.
    public let dataFormat: String
    public let temperatureCelsius: Double?
    public let humidityPercent: Double?
    public let pressurePascal: Int?
    /// Particulate matter by size, µg/m³; format 6 carries PM2.5 only.
    public let pm1: Double?
    public let pm2_5: Double?
    public let pm4: Double?
    public let pm10: Double?
    public let co2PPM: Int?
    /// Sensirion's indexes, 0–500, unitless (VOC averages 100, NOx 1).
    public let vocIndex: Int?
    public let noxIndex: Int?
    public let illuminanceLux: Double?
    /// Format 6 sends the low byte of E1's counter, with no "not available".
    public let measurementSequence: Int?
    /// The sensors are still calibrating: their readings are not accurate yet.
    public let calibrating: Bool
    /// Format 6 carries the MAC's lowest 3 bytes, E1 all 6.
    public let mac: String?

    enum CodingKeys: String, CodingKey {
        case dataFormat = "data_format", temperatureCelsius = "temperature_c", humidityPercent = "humidity_pct", pressurePascal = "pressure_pa"
        case pm1 = "pm1_ugm3", pm2_5 = "pm2_5_ugm3", pm4 = "pm4_ugm3", pm10 = "pm10_ugm3", co2PPM = "co2_ppm"
        case vocIndex = "voc_index", noxIndex = "nox_index", illuminanceLux = "illuminance_lux"
        case measurementSequence = "measurement_sequence", calibrating, mac
    }

    /// Unavailable fields are written as null, so the JSON always has every key.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(dataFormat, forKey: .dataFormat)
        try container.encode(temperatureCelsius, forKey: .temperatureCelsius)
        try container.encode(humidityPercent, forKey: .humidityPercent)
        try container.encode(pressurePascal, forKey: .pressurePascal)
        try container.encode(pm1, forKey: .pm1)
        try container.encode(pm2_5, forKey: .pm2_5)
        try container.encode(pm4, forKey: .pm4)
        try container.encode(pm10, forKey: .pm10)
        try container.encode(co2PPM, forKey: .co2PPM)
        try container.encode(vocIndex, forKey: .vocIndex)
        try container.encode(noxIndex, forKey: .noxIndex)
        try container.encode(illuminanceLux, forKey: .illuminanceLux)
        try container.encode(measurementSequence, forKey: .measurementSequence)
        try container.encode(calibrating, forKey: .calibrating)
        try container.encode(mac, forKey: .mac)
    }

    init?(_ payload: [UInt8]) {
        let extended: Bool
        switch payload.first {
        case 0x06 where payload.count >= 20: extended = false
        case 0xE1 where payload.count >= 40: extended = true
        default: return nil
        }
        var reader = ByteReader(payload, offset: 1)
        func unsigned(_ count: Int) -> UInt64 { reader.bigEndian(count) ?? 0 }
        /// A field's value, nil at its "not available" (all bits set).
        func field(_ count: Int) -> UInt64? {
            let value = unsigned(count)
            return value == (1 << (8 * UInt64(count))) - 1 ? nil : value
        }
        func tenths(_ value: UInt64?) -> Double? { value.map { Double($0) / 10 } }
        let flags = payload[extended ? 28 : 16]
        dataFormat = extended ? "E1" : "6"
        let temperature = UInt16(truncatingIfNeeded: unsigned(2))
        temperatureCelsius = temperature == 0x8000 ? nil : (Double(Int16(bitPattern: temperature)) * 0.005 * 1000).rounded() / 1000
        humidityPercent = field(2).map { (Double($0) * 0.0025 * 10000).rounded() / 10000 }
        pressurePascal = field(2).map { Int($0) + 50_000 }
        if extended {
            (pm1, pm2_5, pm4, pm10) = (tenths(field(2)), tenths(field(2)), tenths(field(2)), tenths(field(2)))
        } else {
            (pm1, pm2_5, pm4, pm10) = (nil, tenths(field(2)), nil, nil)
        }
        co2PPM = field(2).map { Int($0) }
        // Nine bits each: the high eight in their byte, the lowest in the flags (bits 6 and 7).
        let voc = Int(unsigned(1)) << 1 | Int(flags >> 6 & 1)
        let nox = Int(unsigned(1)) << 1 | Int(flags >> 7 & 1)
        (vocIndex, noxIndex) = (voc == 0x1FF ? nil : voc, nox == 0x1FF ? nil : nox)
        if extended {
            illuminanceLux = field(3).map { Double($0) / 100 }
            _ = reader.take(3)
            measurementSequence = field(3).map { Int($0) }
            _ = reader.take(1 + 5)
            mac = reader.byteString(6).flatMap { $0.isAllOnes ? nil : $0.mac }
        } else {
            // A logarithmic code: 254 steps from 0 to 65535 lux.
            illuminanceLux = field(1).map { code in (exp(Double(code) * log(65_536) / 254) - 1) * 100 }.map { $0.rounded() / 100 }
            _ = reader.take(1)
            measurementSequence = Int(unsigned(1))
            _ = reader.take(1)
            mac = reader.byteString(3).flatMap { $0.isAllOnes ? nil : $0.mac }
        }
        calibrating = flags & 1 == 1
    }
}
