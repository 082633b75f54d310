/// A D-Bus value with its wire type.
///
/// Byte arrays (`ay`) have their own case so that advertisement payloads stay
/// contiguous bytes. Arrays and dictionaries carry their element signature, so
/// an empty one still marshals with the right type.
public enum DBusValue: Sendable, Hashable {
    case byte(UInt8)
    case bool(Bool)
    case int16(Int16)
    case uint16(UInt16)
    case int32(Int32)
    case uint32(UInt32)
    case int64(Int64)
    case uint64(UInt64)
    case double(Double)
    case string(String)
    case objectPath(String)
    case signature(String)
    /// `h`: a file descriptor. One read from a message is a duplicate the
    /// receiver owns and must close; one sent is duplicated by libdbus.
    case unixFD(Int32)
    /// `ay`
    case bytes([UInt8])
    /// `a<element>`, for any element other than a byte or a dict entry.
    case array(element: String, [DBusValue])
    /// `a{<key><value>}`, in wire order.
    case dictionary(key: String, value: String, [DBusDictEntry])
    /// `(…)`
    case structure([DBusValue])
    /// `v`. The only case that needs a box: containers already hold their
    /// elements in arrays, and boxing every value would cost an allocation
    /// per node when decoding.
    indirect case variant(DBusValue)
}
