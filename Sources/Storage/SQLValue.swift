/// A value bound to, or read from, an SQLite statement.
public enum SQLValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])
}

extension SQLValue: ExpressibleByIntegerLiteral, ExpressibleByStringLiteral, ExpressibleByFloatLiteral, ExpressibleByNilLiteral {
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(stringLiteral value: String) { self = .text(value) }
    public init(floatLiteral value: Double) { self = .real(value) }
    public init(nilLiteral: ()) { self = .null }
}

extension SQLValue {
    public var integer: Int64? {
        switch self {
        case .integer(let v): v
        case .real(let v): Int64(exactly: v.rounded(.towardZero))
        default: nil
        }
    }

    public var real: Double? {
        switch self {
        case .real(let v): v
        case .integer(let v): Double(v)
        default: nil
        }
    }

    public var text: String? {
        if case .text(let v) = self { return v }
        return nil
    }

    public var blob: [UInt8]? {
        switch self {
        case .blob(let v): v
        case .text(let v): Array(v.utf8)
        default: nil
        }
    }
}
