public import Telemetry
internal import Basics
/// Turns a stream of NMEA sentences into one `Fix` per epoch, the way gpsd
/// reports TPV: a sentence with a new time of day closes the previous epoch.
public struct NMEAFixAssembler: Sendable {
    private var fix = Fix()
    private var epochTime: Double?
    /// Seconds since 1970 of the last date seen (RMC or ZDA), at midnight.
    private var midnight: Double?
    private var modeFromGSA: Int?
    private var qualityFromGGA: Int?
    private var activeFromRMC: Bool?
    /// Sentences that failed their checksum or could not be read.
    public private(set) var rejected = 0

    public init() {}

    /// Feeds one line; returns the fix of the epoch it closed, if any.
    public mutating func add(line: some StringProtocol) -> Fix? {
        guard let sentence = try? NMEASentence(Substring(line)) else {
            rejected += 1
            return nil
        }
        return add(sentence)
    }

    public mutating func add(_ sentence: NMEASentence) -> Fix? {
        var closed: Fix?
        if let time = Self.timeField(sentence.typeCode).flatMap({ sentence.timeOfDay($0) }) {
            if let current = epochTime, current != time { closed = finish() }
            epochTime = time
        }
        switch sentence.typeCode {
        case Self.rmc:
            if let date = Self.date(sentence.integer(8)) { midnight = date }
            activeFromRMC = sentence.field(1, is: "A")
            position(sentence, 2)
            if let knots = sentence.double(6) { fix.speed = knots * 0.514444 }
            if let track = sentence.double(7) { fix.track = track }
        case Self.gga:
            qualityFromGGA = sentence.integer(5)
            position(sentence, 1)
            fix.satellitesUsed = sentence.integer(6) ?? fix.satellitesUsed
            if let msl = sentence.double(8) {
                fix.altMSL = msl
                if let separation = sentence.double(10) { fix.altHAE = msl + separation }
            }
            fix.status = Self.status(gga: qualityFromGGA) ?? fix.status
        case Self.gns:
            position(sentence, 1)
            if let msl = sentence.double(8) {
                fix.altMSL = msl
                if let separation = sentence.double(9) { fix.altHAE = msl + separation }
            }
        case Self.gll:
            if sentence.field(5, is: "A") { position(sentence, 0) }
        case Self.gsa:
            if let mode = sentence.integer(1), (1...3).contains(mode) { modeFromGSA = mode }
            fix.satellitesUsed = (2...13).filter { !sentence.isEmpty($0) }.count
        case Self.gsv:
            fix.satellitesSeen = sentence.integer(2) ?? fix.satellitesSeen
        case Self.vtg:
            if let track = sentence.double(0) { fix.track = track }
            if let kmh = sentence.double(6) { fix.speed = kmh / 3.6 }
        case Self.zda:
            if let day = sentence.integer(1), let month = sentence.integer(2), let year = sentence.integer(3) {
                midnight = CivilTime.daysSinceEpoch(year: year, month: month, day: day).map { Double($0) * 86400 }
            }
        default:
            break
        }
        return closed
    }

    /// Whether an epoch has begun that `finish` would close.
    public var isOpen: Bool { epochTime != nil || fix.lat != nil }

    /// Closes the current epoch and returns its fix.
    public mutating func finish() -> Fix? {
        guard isOpen else { return nil }
        var out = fix
        let threeDimensionalGGA = (qualityFromGGA ?? 0) > 0 && out.altMSL != nil
        if let modeFromGSA {
            // gpsd trusts a GGA with a fix and an altitude over a GSA that says 2D.
            out.mode = modeFromGSA == 2 && threeDimensionalGGA ? 3 : modeFromGSA
        } else if let quality = qualityFromGGA {
            out.mode = quality == 0 ? 1 : (out.altMSL != nil ? 3 : 2)
        } else if let active = activeFromRMC {
            out.mode = active ? 2 : 1
        }
        if out.mode < 2 {
            out.lat = nil
            out.lon = nil
        }
        if out.mode < 3 {
            out.altHAE = nil
            out.altMSL = nil
        }
        if let epochTime, let midnight { out.time = midnight + epochTime }
        fix = Fix()
        epochTime = nil
        modeFromGSA = nil
        qualityFromGGA = nil
        activeFromRMC = nil
        return out
    }

    private mutating func position(_ sentence: NMEASentence, _ index: Int) {
        guard let lat = sentence.coordinate(index, hemisphere: index + 1, limit: 90),
              let lon = sentence.coordinate(index + 2, hemisphere: index + 3, limit: 180) else { return }
        fix.lat = lat
        fix.lon = lon
    }

    private static func code(_ type: StaticString) -> UInt32 {
        type.withUTF8Buffer { $0.reduce(UInt32(0)) { $0 << 8 | UInt32($1) } }
    }

    private static let rmc = code("RMC"), gga = code("GGA"), gns = code("GNS"), gll = code("GLL")
    private static let gsa = code("GSA"), gsv = code("GSV"), vtg = code("VTG"), zda = code("ZDA")

    /// Which field holds the time of day, per sentence type.
    private static func timeField(_ type: UInt32) -> Int? {
        switch type {
        case rmc, gga, gns, zda: 0
        case gll: 4
        default: nil
        }
    }

    private static func status(gga quality: Int?) -> Int? {
        switch quality {
        case 1?: 1
        case 2?: 2
        case 4?: 3
        case 5?: 4
        case 6?: 5
        default: nil
        }
    }

    /// `ddmmyy` → seconds since 1970 at midnight UTC.
    private static func date(_ value: Int?) -> Double? {
        guard let value, (10100...311299).contains(value) else { return nil }
        let day = value / 10000, month = value / 100 % 100, year = value % 100
        return CivilTime.daysSinceEpoch(year: year < 80 ? 2000 + year : 1900 + year, month: month, day: day).map { Double($0) * 86400 }
    }
}
