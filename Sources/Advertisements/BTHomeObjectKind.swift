/// How one BTHome v2 object id is encoded: its name, size, sign and scale.
struct BTHomeObjectKind: Sendable {
    enum Encoding: Sendable {
        /// A little-endian integer of `length` bytes, times `factor`.
        case number(length: Int, signed: Bool, factor: Double)
        /// 0 or 1.
        case binary
        /// A button event (one byte).
        case button
        /// A dimmer event: event byte and step count.
        case dimmer
        /// A length byte, then UTF-8 text.
        case text
        /// A length byte, then bytes.
        case raw
        /// Seconds since 1970, uint32.
        case timestamp
    }

    var name: String
    var unit: String?
    var encoding: Encoding
    /// 10^digits of the factor, to round away binary noise (25.06, not 25.060000000000002).
    var roundingScale: Double = 1

    init(name: String, unit: String?, encoding: Encoding) {
        self.name = name
        self.unit = unit
        self.encoding = encoding
        if case .number(_, _, let factor) = encoding {
            var f = factor
            while f < 0.999_999, roundingScale < 1e9 {
                f *= 10
                roundingScale *= 10
            }
        }
    }

    /// Bytes the value takes after the id byte; nil for length-prefixed kinds.
    var fixedLength: Int? {
        switch encoding {
        case .number(let length, _, _): length
        case .binary, .button: 1
        case .dimmer: 2
        case .timestamp: 4
        case .text, .raw: nil
        }
    }

    static func number(_ name: String, _ unit: String?, _ length: Int, signed: Bool = false, _ factor: Double = 1) -> BTHomeObjectKind {
        BTHomeObjectKind(name: name, unit: unit, encoding: .number(length: length, signed: signed, factor: factor))
    }

    static func binary(_ name: String) -> BTHomeObjectKind {
        BTHomeObjectKind(name: name, unit: nil, encoding: .binary)
    }

    /// Every object id of the BTHome v2 format, indexed by id.
    static let table: [BTHomeObjectKind?] = {
        var table = [BTHomeObjectKind?](repeating: nil, count: 256)
        let entries: [(UInt8, BTHomeObjectKind)] = [
            (0x00, .number("packet_id", nil, 1)),
            (0x01, .number("battery", "%", 1)),
            (0x02, .number("temperature", "°C", 2, signed: true, 0.01)),
            (0x03, .number("humidity", "%", 2, 0.01)),
            (0x04, .number("pressure", "hPa", 3, 0.01)),
            (0x05, .number("illuminance", "lx", 3, 0.01)),
            (0x06, .number("mass", "kg", 2, 0.01)),
            (0x07, .number("mass", "lb", 2, 0.01)),
            (0x08, .number("dewpoint", "°C", 2, signed: true, 0.01)),
            (0x09, .number("count", nil, 1)),
            (0x0A, .number("energy", "kWh", 3, 0.001)),
            (0x0B, .number("power", "W", 3, 0.01)),
            (0x0C, .number("voltage", "V", 2, 0.001)),
            (0x0D, .number("pm2_5", "µg/m³", 2)),
            (0x0E, .number("pm10", "µg/m³", 2)),
            (0x0F, .binary("generic")),
            (0x10, .binary("power")),
            (0x11, .binary("opening")),
            (0x12, .number("co2", "ppm", 2)),
            (0x13, .number("tvoc", "µg/m³", 2)),
            (0x14, .number("moisture", "%", 2, 0.01)),
            (0x15, .binary("battery_low")),
            (0x16, .binary("battery_charging")),
            (0x17, .binary("carbon_monoxide")),
            (0x18, .binary("cold")),
            (0x19, .binary("connectivity")),
            (0x1A, .binary("door")),
            (0x1B, .binary("garage_door")),
            (0x1C, .binary("gas")),
            (0x1D, .binary("heat")),
            (0x1E, .binary("light")),
            (0x1F, .binary("lock")),
            (0x20, .binary("moisture")),
            (0x21, .binary("motion")),
            (0x22, .binary("moving")),
            (0x23, .binary("occupancy")),
            (0x24, .binary("plug")),
            (0x25, .binary("presence")),
            (0x26, .binary("problem")),
            (0x27, .binary("running")),
            (0x28, .binary("safety")),
            (0x29, .binary("smoke")),
            (0x2A, .binary("sound")),
            (0x2B, .binary("tamper")),
            (0x2C, .binary("vibration")),
            (0x2D, .binary("window")),
            (0x2E, .number("humidity", "%", 1)),
            (0x2F, .number("moisture", "%", 1)),
            (0x3A, BTHomeObjectKind(name: "button", unit: nil, encoding: .button)),
            (0x3C, BTHomeObjectKind(name: "dimmer", unit: nil, encoding: .dimmer)),
            (0x3D, .number("count", nil, 2)),
            (0x3E, .number("count", nil, 4)),
            (0x3F, .number("rotation", "°", 2, signed: true, 0.1)),
            (0x40, .number("distance", "mm", 2)),
            (0x41, .number("distance", "m", 2, 0.1)),
            (0x42, .number("duration", "s", 3, 0.001)),
            (0x43, .number("current", "A", 2, 0.001)),
            (0x44, .number("speed", "m/s", 2, 0.01)),
            (0x45, .number("temperature", "°C", 2, signed: true, 0.1)),
            (0x46, .number("uv_index", nil, 1, 0.1)),
            (0x47, .number("volume", "L", 2, 0.1)),
            (0x48, .number("volume", "mL", 2)),
            (0x49, .number("volume_flow_rate", "m³/h", 2, 0.001)),
            (0x4A, .number("voltage", "V", 2, 0.1)),
            (0x4B, .number("gas", "m³", 3, 0.001)),
            (0x4C, .number("gas", "m³", 4, 0.001)),
            (0x4D, .number("energy", "kWh", 4, 0.001)),
            (0x4E, .number("volume", "L", 4, 0.001)),
            (0x4F, .number("water", "L", 4, 0.001)),
            (0x50, BTHomeObjectKind(name: "timestamp", unit: "s", encoding: .timestamp)),
            (0x51, .number("acceleration", "m/s²", 2, 0.001)),
            (0x52, .number("gyroscope", "°/s", 2, 0.001)),
            (0x53, BTHomeObjectKind(name: "text", unit: nil, encoding: .text)),
            (0x54, BTHomeObjectKind(name: "raw", unit: nil, encoding: .raw)),
            (0x55, .number("volume_storage", "L", 4, 0.001)),
            (0x56, .number("conductivity", "µS/cm", 2)),
            (0x57, .number("temperature", "°C", 1, signed: true)),
            (0x58, .number("temperature", "°C", 1, signed: true, 0.35)),
            (0x59, .number("count", nil, 1, signed: true)),
            (0x5A, .number("count", nil, 2, signed: true)),
            (0x5B, .number("count", nil, 4, signed: true)),
            (0x5C, .number("power", "W", 4, signed: true, 0.01)),
            (0x5D, .number("current", "A", 2, signed: true, 0.001)),
            (0x5E, .number("direction", "°", 2, 0.01)),
            (0x5F, .number("precipitation", "mm", 2, 0.1)),
            (0x60, .number("channel", nil, 1)),
            (0x61, .number("rotational_speed", "rpm", 2)),
            (0x62, .number("speed", "m/s", 4, signed: true, 0.000001)),
            (0x63, .number("acceleration", "m/s²", 4, signed: true, 0.000001)),
            (0x64, .number("light_level", nil, 1)),
            (0xF0, .number("device_type_id", nil, 2)),
            (0xF1, .number("firmware_version", nil, 4)),
            (0xF2, .number("firmware_version", nil, 3)),
        ]
        for (id, kind) in entries { table[Int(id)] = kind }
        return table
    }()

    static let buttonEvents: [UInt8: String] = [
        0x00: "none", 0x01: "press", 0x02: "double_press", 0x03: "triple_press", 0x04: "long_press",
        0x05: "long_double_press", 0x06: "long_triple_press", 0x80: "hold_press",
        // ShellyBLU buttons send 0xFE while held; BTHome's own decoder reads it as 0x80.
        0xFE: "hold_press",
    ]

    static let dimmerEvents: [UInt8: String] = [0x00: "none", 0x01: "rotate_left", 0x02: "rotate_right"]
}
