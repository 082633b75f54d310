internal import CDBus

/// Helpers over type signatures, using libdbus's signature iterator.
public enum DBusSignature {
    /// Splits a signature into its complete types: `sa{sv}i` → `s`, `a{sv}`, `i`.
    /// An invalid signature gives an empty list.
    public static func split(_ signature: String) -> [String] {
        guard !signature.isEmpty, !signature.utf8.contains(0), dbus_signature_validate(signature, nil) != 0 else { return [] }
        // The iterator points into the C string, so it must stay alive throughout.
        return signature.withCString { text in
            var types: [String] = []
            var iter = DBusSignatureIter()
            dbus_signature_iter_init(&iter, text)
            repeat {
                if let raw = dbus_signature_iter_get_signature(&iter) {
                    types.append(String(cString: raw))
                    dbus_free(raw)
                }
            } while dbus_signature_iter_next(&iter) != 0
            return types
        }
    }
}
