/// A trip's id, `trip-` and its start in milliseconds since the epoch: the
/// trip row's key, carried by every sample and event of the trip. Encoded
/// as its text.
public struct TripID: RawRepresentable, Hashable, Comparable, Sendable, Codable, CustomStringConvertible, ExpressibleByStringLiteral {
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }

    public init(stringLiteral id: String) { rawValue = id }

    /// The trip that starts at `wallTime`, seconds since the epoch.
    public init(startingAt wallTime: Double) {
        rawValue = "trip-\(Int64(exactly: (wallTime * 1000).rounded()) ?? 0)"
    }

    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    public var description: String { rawValue }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}
