package import Advertisements
package import FoundationEssentials
package import Radio
package import Vocabulary

/// A sighting with its adverts decoded, as `scan` and `pair` show it.
package struct DecodedSighting: Encodable {
    package var time: Date
    package var address: String
    package var rssi: Int?
    package var name: String?
    package var adverts: [Advertisement]
    /// The pairing this device matches (a private address resolved by its
    /// IRK included): field testers see that their tag or phone is known.
    package var pairing: Mark?

    package struct Mark: Encodable, Equatable {
        package var identity: DeviceIdentity
        package var label: String
        package var role: String
    }

    package init(_ sighting: Sighting, bindkeys: [UInt64: [UInt8]] = [:], at time: Date = Date()) {
        self.time = time
        address = sighting.address.description
        rssi = sighting.rssi
        name = sighting.name
        adverts = Self.adverts(of: sighting, bindkeys: bindkeys)
    }

    /// Decoded with the pairings' bindkeys, and marked with the pairing it matches.
    package init(_ sighting: Sighting, paired: PairedDevices, at time: Date = Date()) {
        self.init(sighting, bindkeys: paired.bindkeys, at: time)
        pairing = paired.pairing(of: sighting, adverts: adverts).map { Mark(identity: $0.identity, label: $0.label, role: $0.role.rawValue) }
    }

    /// A sighting's adverts decoded, manufacturer data first, each in key
    /// order; BTHome with the advertiser's bindkey, if it has one.
    package static func adverts(of sighting: Sighting, bindkeys: [UInt64: [UInt8]]) -> [Advertisement] {
        let manufacturer = sighting.manufacturerData.sorted { $0.key < $1.key }.map { AdvertisementDecoder.decode(companyID: $0.key, $0.value) }
        guard !sighting.serviceData.isEmpty else { return manufacturer }
        let bindkey = bindkeys.isEmpty ? nil : bindkeys[sighting.address.value]
        let addressBytes = sighting.address.bytes
        return manufacturer + sighting.serviceData.sorted { $0.key < $1.key }.map {
            AdvertisementDecoder.decode(serviceUUID: $0.key, $0.value, bindkey: bindkey, address: addressBytes)
        }
    }

    /// The first identity any advert carries, else the pairing's (an IRK's for a private address).
    package var identity: DeviceIdentity? { adverts.lazy.compactMap(\.identity).first ?? pairing?.identity }

    package var format: String {
        let known = adverts.filter { if case .unknown = $0 { false } else { true } }
        return known.isEmpty ? (adverts.isEmpty ? "-" : "unknown") : known.map(\.format).joined(separator: "+")
    }

    /// The readings in a few words, for a table cell.
    package var summary: String {
        adverts.map(\.summary).filter { !$0.isEmpty }.joined(separator: "; ")
    }
}

extension Advertisement {
    package var summary: String {
        func f(_ value: Double?, _ digits: Int, _ unit: String) -> String? {
            value.map { ($0 * pow10(digits)).rounded() / pow10(digits) }.map { "\($0) \(unit)" }
        }
        switch self {
        case .iBeacon(let b): return "major \(b.major) minor \(b.minor), \(b.measuredPowerDBm) dBm at 1 m"
        case .altBeacon(let b): return "major \(b.major) minor \(b.minor), \(b.referenceRSSIDBm) dBm at 1 m"
        case .eddystoneUID(let b): return "namespace \(b.namespace) instance \(b.instance)"
        case .eddystoneURL(let b): return b.url
        case .eddystoneTLM(let t):
            return [t.batteryMillivolts.map { "\($0) mV" }, f(t.temperatureCelsius, 2, "°C"), "up \(t.uptimeSeconds) s"]
                .compactMap { $0 }.joined(separator: " ")
        case .eddystoneEID(let e): return "ephemeral id \(e.ephemeralID)"
        case .ruuvi(let r):
            return [f(r.temperatureCelsius, 2, "°C"), f(r.humidityPercent, 2, "%"), f(r.pressurePascal.map { Double($0) / 100 }, 2, "hPa"),
                    f(r.batteryVolts, 3, "V")].compactMap { $0 }.joined(separator: " ")
        case .ruuviV1(let r):
            return [f(r.temperatureCelsius, 2, "°C"), f(r.humidityPercent, 1, "%"), f(Double(r.pressurePascal) / 100, 2, "hPa"),
                    f(r.batteryVolts, 3, "V")].compactMap { $0 }.joined(separator: " ")
        case .ruuviAir(let r):
            return [f(r.temperatureCelsius, 2, "°C"), f(r.humidityPercent, 2, "%"), r.co2PPM.map { "CO2 \($0) ppm" }, f(r.pm2_5, 1, "µg/m³ PM2.5"),
                    r.vocIndex.map { "VOC \($0)" }, r.noxIndex.map { "NOx \($0)" }, f(r.illuminanceLux, 0, "lx"), r.calibrating ? "(calibrating)" : nil]
                .compactMap { $0 }.joined(separator: " ")
        case .btHome(let p):
            if let problem = p.problem { return "(\(problem.rawValue))" }
            return p.objects.filter { $0.name != "packet_id" }.map { object in
                switch object.value {
                case .number(let v): "\(object.name) \(v)\(object.unit.map { " " + $0 } ?? "")"
                case .binary(let v): "\(object.name) \(v ? "on" : "off")"
                case .event(let v): "\(object.name) \(v)"
                case .text(let v), .raw(let v): "\(object.name) \(v)"
                }
            }.joined(separator: ", ")
        case .unknown: return ""
        }
    }
}

private func pow10(_ n: Int) -> Double { (0..<n).reduce(1) { r, _ in r * 10 } }
