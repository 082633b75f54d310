// Typed reads of a value, looking through variants. They return nil on a type
// mismatch, so decoding a peer's odd property never traps.
extension DBusValue {
    /// The value inside any number of variant wrappers.
    public var unwrapped: DBusValue {
        if case .variant(let inner) = self { return inner.unwrapped }
        return self
    }

    public var string: String? {
        switch unwrapped {
        case .string(let s), .objectPath(let s), .signature(let s): s
        default: nil
        }
    }

    public var bool: Bool? {
        if case .bool(let b) = unwrapped { return b }
        return nil
    }

    /// Any integer type, widened.
    public var int64: Int64? {
        switch unwrapped {
        case .byte(let v): Int64(v)
        case .int16(let v): Int64(v)
        case .uint16(let v): Int64(v)
        case .int32(let v): Int64(v)
        case .uint32(let v): Int64(v)
        case .int64(let v): v
        case .uint64(let v): Int64(exactly: v)
        default: nil
        }
    }

    public var double: Double? {
        if case .double(let d) = unwrapped { return d }
        return int64.map(Double.init)
    }

    /// `ay`, or an array of bytes built element by element.
    public var bytes: [UInt8]? {
        switch unwrapped {
        case .bytes(let b): return b
        case .array("y", let values):
            var out: [UInt8] = []
            out.reserveCapacity(values.count)
            for case .byte(let b) in values { out.append(b) }
            return out.count == values.count ? out : nil
        default: return nil
        }
    }

    public var array: [DBusValue]? {
        switch unwrapped {
        case .array(_, let values): values
        case .bytes(let b): b.map(DBusValue.byte)
        default: nil
        }
    }

    /// Dictionary entries as pairs, in wire order.
    public var entries: [DBusDictEntry]? {
        if case .dictionary(_, _, let e) = unwrapped { return e }
        return nil
    }

    /// A dictionary with string or object-path keys (`a{sv}`, `a{oa{sv}}`, …).
    public var stringKeyed: [String: DBusValue]? {
        guard let entries else { return nil }
        var out: [String: DBusValue] = [:]
        out.reserveCapacity(entries.count)
        for entry in entries {
            guard let key = entry.key.string else { return nil }
            out[key] = entry.value
        }
        return out
    }

    /// A dictionary with integer keys, such as BlueZ's `ManufacturerData` (`a{qv}`).
    public var integerKeyed: [Int64: DBusValue]? {
        guard let entries else { return nil }
        var out: [Int64: DBusValue] = [:]
        for entry in entries {
            guard let key = entry.key.int64 else { return nil }
            out[key] = entry.value
        }
        return out
    }

    public var fields: [DBusValue]? {
        if case .structure(let f) = unwrapped { return f }
        return nil
    }
}

extension DBusValue {
    /// Builds an `a{sv}` from string keys, sorted for a stable wire form.
    public static func vardict(_ values: [String: DBusValue]) -> DBusValue {
        .dictionary(
            key: "s", value: "v",
            values.sorted { $0.key < $1.key }.map { DBusDictEntry(.string($0.key), .variant($0.value)) }
        )
    }
}
