/// A location source's line as received: a gpsd JSON report or an NMEA
/// sentence, without its line ending.
public struct LocationLine: Sendable, Equatable {
    public enum Speaks: UInt8, Sendable {
        case gpsd = 0, nmea = 1
    }

    public var speaks: Speaks
    public var bytes: [UInt8]

    public init(speaks: Speaks, bytes: [UInt8]) {
        (self.speaks, self.bytes) = (speaks, bytes)
    }
}
