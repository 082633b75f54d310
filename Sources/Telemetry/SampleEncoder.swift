internal import Advertisements
internal import Basics
internal import FoundationEssentials
public import Vocabulary

/// The one place that writes a sample's JSON: its payload's members, as
/// they are queued and sent (`"lat":48.2,"lon":8.4`, without braces).
public enum SampleEncoder {
    public static func members(_ payload: SamplePayload) -> String {
        var bytes: [UInt8] = []
        appendMembers(payload, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    public static func appendMembers(_ payload: SamplePayload, to bytes: inout [UInt8]) {
        switch payload {
        case .fix(let fix):
            appendMembers(fix, to: &bytes)
        case .beacon(let rssi):
            if let rssi { bytes += #""rssi":\#(rssi)"#.utf8 }
        case .sensor(let id, let advert):
            bytes += #""sensor":"#.utf8
            JSONText.appendQuoted(id.rawValue, to: &bytes)
            // The decoders' own Encodable form, which `scan --json` shows too.
            if let json = try? encoder.encode(advert), json.count > 2 {
                bytes.append(UInt8(ascii: ","))
                bytes += json.dropFirst().dropLast()
            }
        case .event(let event):
            bytes += #""type":"#.utf8
            JSONText.appendQuoted(event.kind.rawValue, to: &bytes)
            if !event.detail.isEmpty { bytes.append(UInt8(ascii: ",")) }
            appendMembers(event, to: &bytes)
        case .radioHealth(let health):
            if let json = try? encoder.encode(health), json.count > 2 { bytes += json.dropFirst().dropLast() }
        case .gatewayInfo(let info):
            if let json = try? encoder.encode(info), json.count > 2 { bytes += json.dropFirst().dropLast() }
        }
    }

    /// An event's details as an object of strings, names sorted: as the
    /// control interface's `Event` signal carries them, and the event log keeps them.
    public static func object(_ event: Event) -> String {
        var bytes: [UInt8] = [UInt8(ascii: "{")]
        appendMembers(event, to: &bytes)
        return String(decoding: bytes + [UInt8(ascii: "}")], as: UTF8.self)
    }

    private static func appendMembers(_ event: Event, to bytes: inout [UInt8]) {
        for (index, (key, value)) in event.members.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            JSONText.appendQuoted(key, to: &bytes)
            bytes.append(UInt8(ascii: ":"))
            JSONText.appendQuoted(value, to: &bytes)
        }
    }

    /// A fix's members with gpsd's TPV names and decimals; absent fields are left out.
    public static func appendMembers(_ fix: Fix, to bytes: inout [UInt8]) {
        func name(_ name: StaticString) {
            bytes += [UInt8(ascii: ","), UInt8(ascii: "\"")]
            bytes += UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount)
            bytes += [UInt8(ascii: "\""), UInt8(ascii: ":")]
        }
        func integer(_ value: Int) {
            if value < 0 { bytes.append(UInt8(ascii: "-")) }
            DecimalText.append(Int(clamping: value.magnitude), to: &bytes)
        }
        func number(_ key: StaticString, _ value: Double?, _ decimals: Int) {
            guard let value else { return }
            name(key)
            JSONText.appendFixed(value, decimals, to: &bytes)
        }
        if let time = fix.time {
            bytes += #""time":""#.utf8
            CivilTime.appendISO8601(time, to: &bytes)
            bytes += #"","mode":"#.utf8
        } else {
            bytes += #""mode":"#.utf8
        }
        integer(fix.mode)
        if let status = fix.status {
            name("status")
            integer(status)
        }
        number("lat", fix.lat, 9)
        number("lon", fix.lon, 9)
        number("altHAE", fix.altHAE, 4)
        number("altMSL", fix.altMSL, 4)
        number("speed", fix.speed, 3)
        number("track", fix.track, 4)
        number("climb", fix.climb, 3)
        number("eph", fix.eph, 3)
        number("epv", fix.epv, 3)
        number("ept", fix.ept, 3)
        if let used = fix.satellitesUsed {
            name("uSat")
            integer(used)
        }
        if let seen = fix.satellitesSeen {
            name("nSat")
            integer(seen)
        }
    }

    /// A health report as one JSON object, keys sorted: the sample's members
    /// in braces, as `waymark radio --json` prints it.
    public static func object(_ health: RadioHealth) -> String {
        "{" + members(.radioHealth(health)) + "}"
    }

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()
}
