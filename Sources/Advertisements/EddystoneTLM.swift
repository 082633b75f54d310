/// Eddystone-TLM (frame 0x20), unencrypted version 0: beacon telemetry.
public struct EddystoneTLM: Sendable, Hashable, Encodable {
    public var version: UInt8
    /// nil when the beacon reports 0 (no battery reading).
    public var batteryMillivolts: UInt16?
    /// Signed 8.8 fixed point; nil for the "not supported" value 0x8000.
    public var temperatureCelsius: Double?
    public var advertisementCount: UInt32
    /// Time since power-on; the frame counts in 0.1 s units.
    public var uptimeSeconds: Double

    enum CodingKeys: String, CodingKey {
        case version
        case batteryMillivolts = "battery_mv"
        case temperatureCelsius = "temperature_c"
        case advertisementCount = "advertisement_count"
        case uptimeSeconds = "uptime_s"
    }

    init?(_ frame: [UInt8]) {
        var reader = ByteReader(frame, offset: 1)
        guard let version = reader.u8(), version == 0, let battery = reader.bigEndian(2), let temperature = reader.bigEndian(2),
              let count = reader.bigEndian(4), let uptime = reader.bigEndian(4) else { return nil }
        self.version = version
        self.batteryMillivolts = battery == 0 ? nil : UInt16(battery)
        self.temperatureCelsius = temperature == 0x8000 ? nil : Double(temperature.signExtended(fromBytes: 2)) / 256
        self.advertisementCount = UInt32(count)
        self.uptimeSeconds = Double(uptime) / 10
    }
}
