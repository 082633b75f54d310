/// Text from outside (a label, a device's name, a line of a file) made safe
/// for a terminal and for line-based output: every control character (C0,
/// DEL, C1, and the bidirectional overrides that reorder what is shown) is
/// written visibly as `\n`, `\t`, `\r` or `\u{…}`, so no byte can move the
/// cursor, set a title, clear the screen or split one record into two lines.
public enum TerminalText {
    public static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: needsEscape) else { return text }
        var result = ""
        result.reserveCapacity(text.utf8.count + 8)
        for scalar in text.unicodeScalars {
            guard needsEscape(scalar) else {
                result.unicodeScalars.append(scalar)
                continue
            }
            switch scalar {
            case "\n": result += "\\n"
            case "\t": result += "\\t"
            case "\r": result += "\\r"
            default: result += "\\u{" + String(scalar.value, radix: 16) + "}"
            }
        }
        return result
    }

    /// Whether `text` holds anything `escaped` would change.
    public static func isPlain(_ text: String) -> Bool { !text.unicodeScalars.contains(where: needsEscape) }

    private static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: true
        // Bidirectional embeddings, overrides and isolates.
        case 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }
}
