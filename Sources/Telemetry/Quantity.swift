public import Advertisements

/// A quantity a sensor tag reports, as Home Assistant names it. A BTHome
/// object of the same name is read as the quantity.
public enum Quantity: String, Sendable, CaseIterable {
    case temperature, humidity, pressure, battery, voltage
    case co2, pm1, pm2_5, pm4, pm10, vocIndex = "voc_index", noxIndex = "nox_index", illuminance

    /// Home Assistant's `device_class`; nil where it has none (the indexes, PM4).
    public var deviceClass: String? {
        switch self {
        case .pressure: "atmospheric_pressure"
        case .co2: "carbon_dioxide"
        case .pm2_5: "pm25"
        case .pm4, .vocIndex, .noxIndex: nil
        default: rawValue
        }
    }

    /// The unit Home Assistant shows; nil for the unitless indexes.
    public var unit: String? {
        switch self {
        case .temperature: "°C"
        case .humidity, .battery: "%"
        case .pressure: "hPa"
        case .voltage: "V"
        case .co2: "ppm"
        case .pm1, .pm2_5, .pm4, .pm10: "µg/m³"
        case .vocIndex, .noxIndex: nil
        case .illuminance: "lx"
        }
    }

    public var name: String {
        switch self {
        case .co2: "CO2"
        case .pm1: "PM1"
        case .pm2_5: "PM2.5"
        case .pm4: "PM4"
        case .pm10: "PM10"
        case .vocIndex: "VOC index"
        case .noxIndex: "NOx index"
        default: rawValue.prefix(1).uppercased() + rawValue.dropFirst()
        }
    }
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
        case .ruuviV1(let reading):
            values[.temperature] = reading.temperatureCelsius
            values[.humidity] = reading.humidityPercent
            values[.pressure] = Double(reading.pressurePascal) / 100
            values[.voltage] = reading.batteryVolts
        case .ruuviAir(let reading):
            values[.temperature] = reading.temperatureCelsius
            values[.humidity] = reading.humidityPercent
            values[.pressure] = reading.pressurePascal.map { Double($0) / 100 }
            values[.co2] = reading.co2PPM.map(Double.init)
            (values[.pm1], values[.pm2_5], values[.pm4], values[.pm10]) = (reading.pm1, reading.pm2_5, reading.pm4, reading.pm10)
            values[.vocIndex] = reading.vocIndex.map(Double.init)
            values[.noxIndex] = reading.noxIndex.map(Double.init)
            values[.illuminance] = reading.illuminanceLux
        case .btHome(let packet):
            for measurement in Quantity.allCases { values[measurement] = packet.number(measurement.rawValue) }
        default:
            break
        }
        return values.filter { $0.value.isFinite }
    }
}
