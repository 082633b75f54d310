/// One position report, with gpsd's TPV field names and units wherever gpsd
/// has one. Fields a receiver did not send are nil.
public struct Fix: Sendable, Equatable {
    /// Seconds since 1970, UTC; nil until the receiver has sent a date.
    public var time: Double?
    /// 0 unknown, 1 no fix, 2 2D, 3 3D.
    public var mode = 0
    /// gpsd's status: 1 normal, 2 DGPS, 3 RTK fixed, 4 RTK float, 5 dead reckoning, 6 GNSS + DR.
    public var status: Int?
    /// Degrees, WGS84.
    public var lat: Double?
    public var lon: Double?
    /// Metres above the ellipsoid / mean sea level.
    public var altHAE: Double?
    public var altMSL: Double?
    /// Metres per second over ground.
    public var speed: Double?
    /// Degrees true.
    public var track: Double?
    /// Metres per second, up.
    public var climb: Double?
    /// Estimated errors: horizontal and vertical position (m), time (s).
    public var eph: Double?
    public var epv: Double?
    public var ept: Double?
    public var satellitesUsed: Int?
    public var satellitesSeen: Int?

    public init() {}
}
