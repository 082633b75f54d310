internal import CDBus

/// Reads a message's arguments in place, one at a time, without building a
/// `DBusValue` tree: for hot paths that want a few fields of a large message
/// (BlueZ's `PropertiesChanged` for every advert). Every read checks the type
/// first and returns nil on a mismatch, so odd input never traps.
///
/// A reader is valid only inside the closure it was given to.
public struct DBusArgumentReader {
    var iter: DBusMessageIter
    /// A message without arguments has no valid iterator at all.
    var isEmpty = false

    init(_ iter: DBusMessageIter) { self.iter = iter }

    var currentType: Int32 {
        mutating get { isEmpty ? CDBUS_TYPE_INVALID : dbus_message_iter_get_arg_type(&iter) }
    }

    /// Whether there is an argument at the current position.
    public var hasMore: Bool { mutating get { currentType != CDBUS_TYPE_INVALID } }

    /// Moves past the current argument.
    public mutating func skip() {
        if !isEmpty { dbus_message_iter_next(&iter) }
    }

    /// A string, object path or signature; advances.
    public mutating func string() -> String? {
        let type = currentType
        guard type == CDBUS_TYPE_STRING || type == CDBUS_TYPE_OBJECT_PATH || type == CDBUS_TYPE_SIGNATURE,
              let raw = cdbus_get_string(&iter) else { return nil }
        defer { skip() }
        return String(cString: raw)
    }

    /// Any integer type, widened; advances.
    public mutating func integer() -> Int64? {
        let type = currentType
        defer { skip() }
        switch type {
        case CDBUS_TYPE_BYTE, CDBUS_TYPE_UINT16, CDBUS_TYPE_UINT32, CDBUS_TYPE_UINT64:
            return Int64(exactly: cdbus_get_u64(&iter, type))
        case CDBUS_TYPE_INT16, CDBUS_TYPE_INT32, CDBUS_TYPE_INT64:
            return Int64(bitPattern: cdbus_get_u64(&iter, type))
        default:
            return nil
        }
    }

    public mutating func bool() -> Bool? {
        let type = currentType
        defer { skip() }
        return type == CDBUS_TYPE_BOOLEAN ? cdbus_get_u64(&iter, type) != 0 : nil
    }

    /// An `ay`; advances.
    public mutating func bytes() -> [UInt8]? {
        guard currentType == CDBUS_TYPE_ARRAY, dbus_message_iter_get_element_type(&iter) == CDBUS_TYPE_BYTE else {
            skip()
            return nil
        }
        var sub = cdbus_iter_zero()
        dbus_message_iter_recurse(&iter, &sub)
        var pointer: UnsafePointer<UInt8>?
        let count = cdbus_get_bytes(&sub, &pointer)
        skip()
        guard let pointer, count > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: pointer, count: Int(count)))
    }

    /// Reads the value inside a variant (looking through nested variants); advances.
    public mutating func variant<T>(_ body: (inout DBusArgumentReader) -> T?) -> T? {
        guard currentType == CDBUS_TYPE_VARIANT else {
            skip()
            return nil
        }
        var inner = DBusArgumentReader(cdbus_iter_zero())
        dbus_message_iter_recurse(&iter, &inner.iter)
        skip()
        if inner.currentType == CDBUS_TYPE_VARIANT { return inner.variant(body) }
        return body(&inner)
    }

    /// Calls `body` with a reader at each dictionary entry's key (the value
    /// follows the key); advances past the dictionary. False if the current
    /// argument is not a dictionary.
    @discardableResult
    public mutating func forEachEntry(_ body: (inout DBusArgumentReader) -> Void) -> Bool {
        guard currentType == CDBUS_TYPE_ARRAY, dbus_message_iter_get_element_type(&iter) == CDBUS_TYPE_DICT_ENTRY else {
            skip()
            return false
        }
        var entries = cdbus_iter_zero()
        dbus_message_iter_recurse(&iter, &entries)
        while dbus_message_iter_get_arg_type(&entries) == CDBUS_TYPE_DICT_ENTRY {
            var entry = DBusArgumentReader(cdbus_iter_zero())
            dbus_message_iter_recurse(&entries, &entry.iter)
            body(&entry)
            dbus_message_iter_next(&entries)
        }
        skip()
        return true
    }

    /// The current argument as a full value; advances.
    public mutating func value() throws(DBusError) -> DBusValue {
        defer { skip() }
        return try DBusMarshal.read(&iter)
    }
}

extension DBusMessage {
    /// Runs `body` with a reader at the first argument.
    public func withArguments<T>(_ body: (inout DBusArgumentReader) -> T) -> T {
        var reader = DBusArgumentReader(cdbus_iter_zero())
        reader.isEmpty = dbus_message_iter_init(raw, &reader.iter) == 0
        return body(&reader)
    }
}
