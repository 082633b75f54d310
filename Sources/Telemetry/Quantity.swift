public import Advertisements

/// A quantity a sensor tag reports, as Home Assistant names it.
public enum Quantity: String, Sendable, CaseIterable {
    case temperature, humidity, pressure, battery, voltage

    /// Home Assistant's `device_class`.
    public var deviceClass: String {
        switch self {
        case .pressure: "atmospheric_pressure"
        default: rawValue
        }
    }

    public var unit: String {
        switch self {
        case .temperature: "°C"
        case .humidity, .battery: "%"
        case .pressure: "hPa"
        case .voltage: "V"
        }
    }

    public var name: String { rawValue.prefix(1).uppercased() + rawValue.dropFirst() }
}

extension Advertisement {
    /// The quantities a sensor tag's advert carries; non-finite values left out.
    public var quantities: [Quantity: Double] {
        var values: [Quantity: Double] = [:]
        switch self {
        case .ruuvi(let reading):
            values[.temperature] = reading.temperatureCelsius
            values[.humidity] = reading.humidityPercent
            values[.pressure] = reading.pressurePascal.map { Double($0) / 100 }
            values[.voltage] = reading.batteryVolts
        case .btHome(let packet):
            for measurement in Quantity.allCases { values[measurement] = packet.number(measurement.rawValue) }
        default:
            break
        }
        return values.filter { $0.value.isFinite }
    }
}
