import Advertisements
import Foundation
import Testing
import Vocabulary

/// The 30 public test vectors in `vectors.json` (copied from the project's
/// shared data), each decoded and checked field by field.
struct VectorTests {
    struct Vector: Sendable, CustomStringConvertible {
        var id: String
        var format: String
        var kind: String
        var companyID: UInt16?
        var payload: [UInt8]
        var expected: [String: JSONValue]
        var description: String { id }
    }

    static let vectors: [Vector] = {
        guard let url = Bundle.module.url(forResource: "vectors", withExtension: "json"),
              let data = try? Data(contentsOf: url),
              let root = try? JSONDecoder().decode([String: JSONValue].self, from: data),
              case .array(let list) = root["vectors"] else { return [] }
        return list.compactMap { item -> Vector? in
            guard case .object(let v) = item, let id = v["id"]?.string, let format = v["format"]?.string,
                  let kind = v["data_kind"]?.string, case .object(let expected) = v["expected"] else { return nil }
            let hex = v["payload_after_company_id_hex"]?.string ?? v["raw_hex"]?.string ?? ""
            let company = v["company_id"]?.string.flatMap { UInt16($0.dropFirst(2), radix: 16) }
            return Vector(id: id, format: format, kind: kind, companyID: company, payload: Advertisement.parseHex(hex) ?? [], expected: expected)
        }
    }()

    @Test func allThirtyVectorsAreLoaded() {
        #expect(Self.vectors.count == 30)
    }

    @Test(arguments: vectors)
    func decodesTheVector(_ vector: Vector) throws {
        let e = vector.expected
        let decoded: Advertisement
        if vector.kind == "manufacturer_data" {
            decoded = AdvertisementDecoder.decode(companyID: try #require(vector.companyID), vector.payload)
        } else {
            let bindkey = e["bindkey_hex"]?.string.flatMap(Advertisement.parseHex)
            let address = e["ble_address"]?.string.flatMap { Advertisement.parseHex($0.split(separator: ":").joined()) }
            decoded = AdvertisementDecoder.decode(serviceUUID: BluetoothUUID(short: vector.format.hasPrefix("Eddystone") ? 0xFEAA : 0xFCD2), vector.payload, bindkey: bindkey, address: address)
        }

        switch decoded {
        case .iBeacon(let b):
            #expect(vector.format == "iBeacon")
            #expect(b.uuid == e["uuid"]?.string)
            #expect(Double(b.major) == e["major"]?.number)
            #expect(Double(b.minor) == e["minor"]?.number)
            let power = ["tx_power_at_1m_dbm", "measured_power_dbm", "signal_power_dbm", "tx_power_dbm"].lazy.compactMap { e[$0]?.number }.first
            #expect(Double(b.measuredPowerDBm) == power)
        case .altBeacon(let b):
            #expect(vector.format == "AltBeacon")
            #expect(b.uuid == e["uuid"]?.string)
            #expect(Double(b.major) == e["major"]?.number)
            #expect(Double(b.minor) == e["minor"]?.number)
            #expect(Double(b.referenceRSSIDBm) == e["reference_rssi_dbm"]?.number)
            #expect(Double(b.manufacturerReserved) == e["mfg_reserved"]?.number)
        case .eddystoneUID(let b):
            #expect(Double(b.txPowerDBm) == e["tx_power_at_0m_dbm"]?.number)
            #expect(b.namespace == e["namespace"]?.string)
            #expect(b.instance == e["instance"]?.string)
        case .eddystoneURL(let b):
            #expect(Double(b.txPowerDBm) == e["tx_power_at_0m_dbm"]?.number)
            #expect(b.url == e["url"]?.string)
        case .eddystoneTLM(let t):
            let millivolts = e["battery_mv"]?.number ?? e["battery_v"]?.number.map { $0 * 1000 }
            #expect(t.batteryMillivolts.map(Double.init) == millivolts)
            #expect(abs((t.temperatureCelsius ?? .nan) - (e["temperature_c"]?.number ?? .infinity)) < 0.01)
            #expect(Double(t.advertisementCount) == e["adv_count"]?.number)
            // The frame counts uptime in 0.1 s units.
            #expect(t.uptimeSeconds == (e["sec_count_raw"]?.number).map { $0 / 10 })
        case .eddystoneEID(let b):
            #expect(Double(b.txPowerDBm) == e["tx_power_at_0m_dbm"]?.number)
            #expect(b.ephemeralID == e["eid_hex"]?.string)
        case .ruuvi(let r):
            checkRuuvi(r, e)
        case .btHome(let p):
            checkBTHome(p, e)
        case .ruuviV1, .ruuviAir:
            Issue.record("\(vector.id): the public vectors hold no Ruuvi format 3, 6 or E1 (RuuviFormatsTests has them)")
        case .unknown:
            Issue.record("\(vector.id) was not recognised")
        }
    }

    private func checkRuuvi(_ r: RuuviReading, _ e: [String: JSONValue]) {
        close(r.temperatureCelsius, e["temperature_c"], 0.001)
        close(r.humidityPercent, e["humidity_pct"], 0.01)
        if let pa = e["pressure_pa"] { close(r.pressurePascal.map(Double.init), pa, 0.5) }
        if let hpa = e["pressure_hpa"]?.number { close(r.pressurePascal.map { Double($0) / 100 }, .number(hpa), 0.005) }
        if case .object(let g) = e["acceleration_g"] {
            close(r.accelerationG.x, g["x"], 0.0005)
            close(r.accelerationG.y, g["y"], 0.0005)
            close(r.accelerationG.z, g["z"], 0.0005)
        }
        if case .object(let ms2) = e["acceleration_ms2"] {
            close(r.accelerationG.x.map { $0 * 9.80665 }, ms2["x"], 0.01)
            close(r.accelerationG.z.map { $0 * 9.80665 }, ms2["z"], 0.01)
        }
        if case .object(let mg) = e["acceleration_mg"] {
            close(r.accelerationG.x.map { $0 * 1000 }, mg["x"], 0.5)
            close(r.accelerationG.z.map { $0 * 1000 }, mg["z"], 0.5)
        }
        if let v = e["battery_v"] ?? e["voltage_v"] { close(r.batteryVolts, v, 0.0005) }
        if let mv = e["voltage_mv"]?.number { close(r.batteryVolts.map { $0 * 1000 }, .number(mv), 0.5) }
        if let tx = e["tx_power_dbm"] { close(r.txPowerDBm.map(Double.init), tx, 0) }
        if let m = e["movement_counter"] { close(r.movementCounter.map(Double.init), m, 0) }
        if let s = e["measurement_sequence"] { close(r.measurementSequence.map(Double.init), s, 0) }
        if let mac = e["mac"], e["payload_mac_field"] == nil, e["device_name"] == nil {
            #expect(r.mac == mac.string)
        }
        if let field = e["payload_mac_field"]?.string { #expect(r.mac == field) }
    }

    private func checkBTHome(_ p: BTHomePacket, _ e: [String: JSONValue]) {
        #expect(p.problem == nil)
        #expect(p.version == 2)
        let names: [(String, String, Double)] = [
            ("temperature_c", "temperature", 0.001), ("humidity_pct", "humidity", 0.001), ("packet_id", "packet_id", 0),
            ("battery_pct", "battery", 0), ("pressure_mbar", "pressure", 0.001), ("illuminance_lx", "illuminance", 0.001),
            ("voltage_v", "voltage", 0.0001), ("speed_mps", "speed", 0.0000001),
        ]
        for (key, name, tolerance) in names where e[key] != nil {
            close(p.number(name), e[key], tolerance)
        }
        if case .object(let event) = e["event"], let button = event["button"]?.string {
            #expect(p.objects.first?.value == .event(button))
        }
        if let mac = e["embedded_mac"]?.string { #expect(p.mac == mac) }
        if e["bindkey_hex"] != nil {
            #expect(p.encrypted)
            #expect(p.counter == 0x3322_1100)
        }
    }

    private func close(_ actual: Double?, _ expected: JSONValue?, _ tolerance: Double, sourceLocation: SourceLocation = #_sourceLocation) {
        switch expected {
        case .null?:
            #expect(actual == nil, sourceLocation: sourceLocation)
        case .number(let value)?:
            guard let actual else {
                Issue.record("expected \(value), decoded nothing", sourceLocation: sourceLocation)
                return
            }
            #expect(abs(actual - value) <= tolerance, "\(actual) vs \(value)", sourceLocation: sourceLocation)
        default:
            Issue.record("no expected value", sourceLocation: sourceLocation)
        }
    }
}

/// Just enough JSON to read the vector file.
enum JSONValue: Sendable, Decodable, Equatable {
    case null, bool(Bool), number(Double), string(String), array([JSONValue]), object([String: JSONValue])

    init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() { self = .null } else if let b = try? c.decode(Bool.self) { self = .bool(b) } else if let n = try? c.decode(Double.self) {
            self = .number(n)
        } else if let s = try? c.decode(String.self) { self = .string(s) } else if let a = try? c.decode([JSONValue].self) {
            self = .array(a)
        } else { self = .object(try c.decode([String: JSONValue].self)) }
    }

    var string: String? { if case .string(let s) = self { s } else { nil } }
    var number: Double? { if case .number(let n) = self { n } else { nil } }
}
