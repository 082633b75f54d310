/// A paired sensor's id in its samples, `pairing-3`: its pairing's row id,
/// which is never given to another pairing. Topic-safe by construction.
public struct SensorID: RawRepresentable, Hashable, Comparable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }

    public init(stringLiteral id: String) { rawValue = id }

    public init(pairing id: Int64) { rawValue = "pairing-\(id)" }

    /// The pairing's row id; nil for an id of another form (read from a
    /// damaged sample, or written by a newer version).
    public var pairing: Int64? { rawValue.hasPrefix("pairing-") ? Int64(rawValue.dropFirst("pairing-".count)) : nil }

    public var description: String { rawValue }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}
