internal import Foundation

extension GPSDReport {
    /// Decodes one line (without its newline).
    public init(json line: [UInt8]) throws(Problem) {
        let wire: Wire
        do {
            wire = try Self.decoder.decode(Wire.self, from: Data(line))
        } catch {
            throw .notAReport
        }
        self = wire.report
    }

    private static let decoder = JSONDecoder()

    private enum Key: String, CodingKey {
        case `class`, release, devices, path, activated, device, message
        case time, mode, status, lat, lon, altHAE, altMSL, speed, track, climb, eph, epv, ept
        case uSat, nSat, satellites, used
    }

    /// The decodable form of a line: every field optional and forgiving.
    private struct Wire: Decodable {
        var report: GPSDReport

        init(from decoder: any Decoder) throws {
            let keys = try decoder.container(keyedBy: Key.self)
            let kind = try keys.decode(String.self, forKey: .class)
            switch kind {
            case "VERSION":
                report = .version(release: keys.lenient(String.self, .release) ?? "")
            case "DEVICES":
                var paths: [String] = []
                if var list = try? keys.nestedUnkeyedContainer(forKey: .devices) {
                    while !list.isAtEnd {
                        guard let device = try? list.decode(Device.self) else {
                            _ = try? list.decode(Skip.self)
                            continue
                        }
                        if device.active, let path = device.path { paths.append(path) }
                    }
                }
                report = .devices(paths)
            case "DEVICE":
                let device = try Device(from: decoder)
                report = .device(path: device.path ?? "", active: device.active)
            case "WATCH":
                report = .watch
            case "TPV":
                report = .tpv(Self.fix(keys), device: keys.lenient(String.self, .device))
            case "SKY":
                var used = keys.lenient(Int.self, .uSat)
                var seen = keys.lenient(Int.self, .nSat)
                if used == nil || seen == nil, var list = try? keys.nestedUnkeyedContainer(forKey: .satellites) {
                    var countUsed = 0, countSeen = 0
                    while !list.isAtEnd {
                        let satellite = try? list.decode(Satellite.self)
                        if satellite == nil { _ = try? list.decode(Skip.self) }
                        countSeen += 1
                        if satellite?.used == true { countUsed += 1 }
                    }
                    used = used ?? countUsed
                    seen = seen ?? countSeen
                }
                report = .sky(used: used, seen: seen)
            case "ERROR":
                report = .error(message: keys.lenient(String.self, .message) ?? "")
            default:
                report = .other(class: kind)
            }
        }

        private static func fix(_ keys: KeyedDecodingContainer<Key>) -> Fix {
            var fix = Fix()
            fix.time = keys.lenient(String.self, .time).flatMap { CivilTime.parseISO8601($0) }
            fix.mode = keys.lenient(Int.self, .mode).flatMap { (0...3).contains($0) ? $0 : nil } ?? 0
            fix.status = keys.lenient(Int.self, .status)
            fix.lat = keys.finite(.lat).flatMap { abs($0) <= 90 ? $0 : nil }
            fix.lon = keys.finite(.lon).flatMap { abs($0) <= 180 ? $0 : nil }
            fix.altHAE = keys.finite(.altHAE)
            fix.altMSL = keys.finite(.altMSL)
            fix.speed = keys.finite(.speed)
            fix.track = keys.finite(.track)
            fix.climb = keys.finite(.climb)
            fix.eph = keys.finite(.eph)
            fix.epv = keys.finite(.epv)
            fix.ept = keys.finite(.ept)
            if fix.lat == nil || fix.lon == nil {
                fix.lat = nil
                fix.lon = nil
            }
            return fix
        }
    }

    private struct Device: Decodable {
        var path: String?
        /// An activation time, or `0` once the device is gone.
        var active: Bool

        init(from decoder: any Decoder) throws {
            let keys = try decoder.container(keyedBy: Key.self)
            path = keys.lenient(String.self, .path)
            if let number = keys.lenient(Double.self, .activated) {
                active = number != 0
            } else {
                active = true
            }
        }
    }

    private struct Satellite: Decodable {
        var used: Bool?

        init(from decoder: any Decoder) throws {
            used = try decoder.container(keyedBy: Key.self).lenient(Bool.self, .used)
        }
    }

    /// Consumes one array element of any shape.
    private struct Skip: Decodable {
        init(from decoder: any Decoder) throws {}
    }
}

extension KeyedDecodingContainer {
    /// The value, or nil when missing, null or of another type.
    fileprivate func lenient<T: Decodable>(_ type: T.Type, _ key: Key) -> T? {
        (try? decodeIfPresent(type, forKey: key)) ?? nil
    }

    fileprivate func finite(_ key: Key) -> Double? {
        lenient(Double.self, key).flatMap { $0.isFinite ? $0 : nil }
    }
}
