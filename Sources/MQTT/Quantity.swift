/// A quantity a sensor tag reports, as Home Assistant names it.
public enum Quantity: String, Sendable, CaseIterable {
    case temperature, humidity, pressure, battery, voltage

    /// Home Assistant's `device_class`.
    var deviceClass: String {
        switch self {
        case .pressure: "atmospheric_pressure"
        default: rawValue
        }
    }

    var unit: String {
        switch self {
        case .temperature: "°C"
        case .humidity, .battery: "%"
        case .pressure: "hPa"
        case .voltage: "V"
        }
    }

    var name: String { rawValue.prefix(1).uppercased() + rawValue.dropFirst() }
}
