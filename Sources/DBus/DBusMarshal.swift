internal import CDBus

/// Moves `DBusValue`s in and out of libdbus message iterators.
///
/// Values are validated in Swift before any append, because libdbus answers a
/// bad argument with a warning on stderr (or an abort under
/// `DBUS_FATAL_WARNINGS`), not with an error.
enum DBusMarshal {
    // MARK: Reading

    static func readAll(_ iter: inout DBusMessageIter) throws(DBusError) -> [DBusValue] {
        var values: [DBusValue] = []
        while dbus_message_iter_get_arg_type(&iter) != CDBUS_TYPE_INVALID {
            values.append(try read(&iter))
            dbus_message_iter_next(&iter)
        }
        return values
    }

    static func read(_ iter: inout DBusMessageIter) throws(DBusError) -> DBusValue {
        let type = dbus_message_iter_get_arg_type(&iter)
        switch type {
        case CDBUS_TYPE_BYTE: return .byte(UInt8(truncatingIfNeeded: cdbus_get_u64(&iter, type)))
        case CDBUS_TYPE_BOOLEAN: return .bool(cdbus_get_u64(&iter, type) != 0)
        case CDBUS_TYPE_INT16: return .int16(Int16(truncatingIfNeeded: cdbus_get_u64(&iter, type)))
        case CDBUS_TYPE_UINT16: return .uint16(UInt16(truncatingIfNeeded: cdbus_get_u64(&iter, type)))
        case CDBUS_TYPE_INT32: return .int32(Int32(truncatingIfNeeded: cdbus_get_u64(&iter, type)))
        case CDBUS_TYPE_UINT32: return .uint32(UInt32(truncatingIfNeeded: cdbus_get_u64(&iter, type)))
        case CDBUS_TYPE_INT64: return .int64(Int64(bitPattern: cdbus_get_u64(&iter, type)))
        case CDBUS_TYPE_UINT64: return .uint64(cdbus_get_u64(&iter, type))
        case CDBUS_TYPE_DOUBLE: return .double(cdbus_get_double(&iter))
        case CDBUS_TYPE_STRING: return .string(readString(&iter))
        case CDBUS_TYPE_OBJECT_PATH: return .objectPath(readString(&iter))
        case CDBUS_TYPE_SIGNATURE: return .signature(readString(&iter))
        case CDBUS_TYPE_UNIX_FD: return .unixFD(Int32(truncatingIfNeeded: cdbus_get_u64(&iter, type)))
        case CDBUS_TYPE_VARIANT:
            var sub = cdbus_iter_zero()
            dbus_message_iter_recurse(&iter, &sub)
            return .variant(try read(&sub))
        case CDBUS_TYPE_STRUCT:
            var sub = cdbus_iter_zero()
            dbus_message_iter_recurse(&iter, &sub)
            return .structure(try readAll(&sub))
        case CDBUS_TYPE_ARRAY:
            return try readArray(&iter)
        default:
            throw .unexpectedReply(expected: "a supported D-Bus type", got: String(UnicodeScalar(UInt8(truncatingIfNeeded: type))))
        }
    }

    private static func readString(_ iter: inout DBusMessageIter) -> String {
        cdbus_get_string(&iter).map { String(cString: $0) } ?? ""
    }

    private static func readArray(_ iter: inout DBusMessageIter) throws(DBusError) -> DBusValue {
        let elementType = dbus_message_iter_get_element_type(&iter)
        var sub = cdbus_iter_zero()
        dbus_message_iter_recurse(&iter, &sub)
        if elementType == CDBUS_TYPE_BYTE {
            var pointer: UnsafePointer<UInt8>?
            let count = cdbus_get_bytes(&sub, &pointer)
            guard let pointer, count > 0 else { return .bytes([]) }
            return .bytes(Array(UnsafeBufferPointer(start: pointer, count: Int(count))))
        }
        if elementType == CDBUS_TYPE_DICT_ENTRY {
            let (key, value) = dictionarySignature(&iter, &sub)
            var entries: [DBusDictEntry] = []
            while dbus_message_iter_get_arg_type(&sub) == CDBUS_TYPE_DICT_ENTRY {
                var entry = cdbus_iter_zero()
                dbus_message_iter_recurse(&sub, &entry)
                let k = try read(&entry)
                dbus_message_iter_next(&entry)
                let v = try read(&entry)
                entries.append(DBusDictEntry(k, v))
                dbus_message_iter_next(&sub)
            }
            return .dictionary(key: key, value: value, entries)
        }
        let element = basicSignature(elementType) ?? String(arraySignature(&iter).dropFirst())
        return .array(element: element, try readAll(&sub))
    }

    /// The one-character signature of a basic type or variant, without asking
    /// libdbus (which allocates); nil for containers.
    private static func basicSignature(_ type: Int32) -> String? {
        switch type {
        case CDBUS_TYPE_ARRAY, CDBUS_TYPE_STRUCT, CDBUS_TYPE_DICT_ENTRY, CDBUS_TYPE_INVALID: nil
        default: String(UnicodeScalar(UInt8(truncatingIfNeeded: type)))
        }
    }

    /// Key and value signatures of a dictionary, read from its first entry
    /// when the value is basic or a variant (the common `a{sv}`, `a{qv}`);
    /// otherwise from libdbus.
    private static func dictionarySignature(_ array: inout DBusMessageIter, _ entries: inout DBusMessageIter) -> (String, String) {
        if dbus_message_iter_get_arg_type(&entries) == CDBUS_TYPE_DICT_ENTRY {
            var entry = cdbus_iter_zero()
            dbus_message_iter_recurse(&entries, &entry)
            let key = basicSignature(dbus_message_iter_get_arg_type(&entry))
            dbus_message_iter_next(&entry)
            if let key, let value = basicSignature(dbus_message_iter_get_arg_type(&entry)) { return (key, value) }
        }
        return splitDictEntry(String(arraySignature(&array).dropFirst()))
    }

    private static func arraySignature(_ iter: inout DBusMessageIter) -> String {
        guard let raw = dbus_message_iter_get_signature(&iter) else { return "a" }
        defer { dbus_free(raw) }
        return String(cString: raw)
    }

    /// `{sv}` → ("s", "v"). The key of a dict entry is always one basic type.
    private static func splitDictEntry(_ element: String) -> (String, String) {
        let inner = element.dropFirst().dropLast()
        guard let first = inner.first else { return ("", "") }
        return (String(first), String(inner.dropFirst()))
    }

    // MARK: Writing

    static func appendAll(_ values: [DBusValue], to message: OpaquePointer) throws(DBusError) {
        for value in values { try validate(value, depth: 0) }
        var iter = cdbus_iter_zero()
        dbus_message_iter_init_append(message, &iter)
        for value in values {
            guard append(value, to: &iter) else { throw .outOfMemory }
        }
    }

    private static func append(_ value: DBusValue, to iter: inout DBusMessageIter) -> Bool {
        switch value {
        case .byte(let v): return cdbus_append_u64(&iter, CDBUS_TYPE_BYTE, UInt64(v)) != 0
        case .bool(let v): return cdbus_append_u64(&iter, CDBUS_TYPE_BOOLEAN, v ? 1 : 0) != 0
        case .int16(let v): return cdbus_append_u64(&iter, CDBUS_TYPE_INT16, UInt64(UInt16(bitPattern: v))) != 0
        case .uint16(let v): return cdbus_append_u64(&iter, CDBUS_TYPE_UINT16, UInt64(v)) != 0
        case .int32(let v): return cdbus_append_u64(&iter, CDBUS_TYPE_INT32, UInt64(UInt32(bitPattern: v))) != 0
        case .uint32(let v): return cdbus_append_u64(&iter, CDBUS_TYPE_UINT32, UInt64(v)) != 0
        case .int64(let v): return cdbus_append_u64(&iter, CDBUS_TYPE_INT64, UInt64(bitPattern: v)) != 0
        case .uint64(let v): return cdbus_append_u64(&iter, CDBUS_TYPE_UINT64, v) != 0
        case .double(let v): return cdbus_append_double(&iter, v) != 0
        case .string(let s): return cdbus_append_string(&iter, CDBUS_TYPE_STRING, s) != 0
        case .objectPath(let s): return cdbus_append_string(&iter, CDBUS_TYPE_OBJECT_PATH, s) != 0
        case .signature(let s): return cdbus_append_string(&iter, CDBUS_TYPE_SIGNATURE, s) != 0
        case .unixFD(let fd): return cdbus_append_u64(&iter, CDBUS_TYPE_UNIX_FD, UInt64(UInt32(bitPattern: fd))) != 0
        case .bytes(let b):
            return b.withUnsafeBufferPointer { cdbus_append_bytes(&iter, $0.baseAddress, Int32($0.count)) != 0 }
        case .array(let element, let values):
            return container(CDBUS_TYPE_ARRAY, element, &iter) { sub in
                values.allSatisfy { append($0, to: &sub) }
            }
        case .dictionary(let key, let valueType, let entries):
            return container(CDBUS_TYPE_ARRAY, "{" + key + valueType + "}", &iter) { sub in
                entries.allSatisfy { entry in
                    container(CDBUS_TYPE_DICT_ENTRY, nil, &sub) { pair in
                        append(entry.key, to: &pair) && append(entry.value, to: &pair)
                    }
                }
            }
        case .structure(let fields):
            return container(CDBUS_TYPE_STRUCT, nil, &iter) { sub in
                fields.allSatisfy { append($0, to: &sub) }
            }
        case .variant(let inner):
            return container(CDBUS_TYPE_VARIANT, inner.signature, &iter) { sub in append(inner, to: &sub) }
        }
    }

    private static func container(
        _ type: Int32, _ signature: String?, _ iter: inout DBusMessageIter,
        _ body: (inout DBusMessageIter) -> Bool
    ) -> Bool {
        var sub = cdbus_iter_zero()
        let opened: Bool
        if let signature {
            opened = dbus_message_iter_open_container(&iter, type, signature, &sub) != 0
        } else {
            opened = dbus_message_iter_open_container(&iter, type, nil, &sub) != 0
        }
        guard opened else { return false }
        guard body(&sub) else {
            dbus_message_iter_abandon_container(&iter, &sub)
            return false
        }
        return dbus_message_iter_close_container(&iter, &sub) != 0
    }

    // MARK: Validation

    /// The D-Bus specification's limit on container nesting.
    static let maximumDepth = 64

    static func validate(_ value: DBusValue, depth: Int) throws(DBusError) {
        guard depth < maximumDepth else { throw .invalidArgument("containers nested deeper than \(maximumDepth)") }
        switch value {
        case .string(let s):
            guard !s.utf8.contains(0) else { throw .invalidArgument("string contains a NUL byte") }
        case .objectPath(let p):
            guard isValidObjectPath(p) else { throw .invalidArgument("invalid object path \(p.debugDescription)") }
        case .signature(let s):
            guard s.utf8.count <= 255, !s.utf8.contains(0), dbus_signature_validate(s, nil) != 0 else {
                throw .invalidArgument("invalid signature \(s.debugDescription)")
            }
        case .array(let element, let values):
            try validateSingle(element)
            for v in values {
                guard v.signature == element else {
                    throw .invalidArgument("element of type \(v.signature) in an array of \(element)")
                }
                try validate(v, depth: depth + 1)
            }
        case .dictionary(let key, let valueType, let entries):
            try validateSingle("a{" + key + valueType + "}")
            for e in entries {
                guard e.key.signature == key, e.value.signature == valueType else {
                    throw .invalidArgument("entry {\(e.key.signature)\(e.value.signature)} in a dictionary of {\(key)\(valueType)}")
                }
                try validate(e.key, depth: depth + 1)
                try validate(e.value, depth: depth + 1)
            }
        case .structure(let fields):
            guard !fields.isEmpty else { throw .invalidArgument("empty structure") }
            for f in fields { try validate(f, depth: depth + 1) }
        case .variant(let inner):
            try validate(inner, depth: depth + 1)
            try validateSingle(inner.signature)
        default:
            break
        }
        if depth == 0 { try validateSingle(value.signature) }
    }

    private static func validateSingle(_ signature: String) throws(DBusError) {
        guard signature.utf8.count <= 255, !signature.utf8.contains(0),
              dbus_signature_validate_single(signature, nil) != 0 else {
            throw .invalidArgument("invalid type signature \(signature.debugDescription)")
        }
    }

    static func isValidObjectPath(_ path: String) -> Bool {
        !path.utf8.contains(0) && dbus_validate_path(path, nil) != 0
    }
}
