internal import Basics

/// The pieces of JSON text that Waymark writes by hand: string literals and
/// fixed-point numbers. One escaper for every hand-written document.
public enum JSONText {
    /// Appends `text` as a JSON string literal: quotes and backslashes
    /// escaped, control characters as `\n`, `\r`, `\t` or `\u00XX`.
    public static func appendQuoted(_ text: some StringProtocol, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        // Most text needs no escape: then it is copied whole.
        let copied = text.utf8.withContiguousStorageIfAvailable { utf8 -> Bool in
            guard !utf8.contains(where: needsEscape) else { return false }
            bytes.append(contentsOf: utf8)
            return true
        } ?? false
        if !copied {
            for byte in text.utf8 { appendEscaped(byte, to: &bytes) }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// Appends text that is already JSON (an encoded object's members),
    /// copied whole where the string's storage allows.
    public static func appendRaw(_ text: String, to bytes: inout [UInt8]) {
        var text = text
        text.withUTF8 { bytes.append(contentsOf: $0) }
    }

    private static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }

    private static func appendEscaped(_ byte: UInt8, to bytes: inout [UInt8]) {
        switch byte {
        case UInt8(ascii: "\""): bytes += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
        case UInt8(ascii: "\\"): bytes += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
        case UInt8(ascii: "\n"): bytes += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
        case UInt8(ascii: "\r"): bytes += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
        case UInt8(ascii: "\t"): bytes += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
        case 0..<0x20:
            let hex = Array("0123456789abcdef".utf8)
            bytes += Array(#"\u00"#.utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
        default: bytes.append(byte)
        }
    }

    /// How many bytes `appendQuoted` writes for `text`.
    public static func quotedCount(_ text: some StringProtocol) -> Int {
        text.utf8.reduce(2) { count, byte in
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"): count + 2
            case 0..<0x20: count + 6
            default: count + 1
            }
        }
    }

    /// `text` as a JSON string literal.
    public static func quoted(_ text: some StringProtocol) -> String {
        var bytes: [UInt8] = []
        appendQuoted(text, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends fixed-point text with `decimals` digits after the point;
    /// values too large for it (never a real position) in Swift's form, and
    /// what JSON cannot hold (NaN, infinities) as null.
    public static func appendFixed(_ value: Double, _ decimals: Int, to bytes: inout [UInt8]) {
        guard value.isFinite else { return bytes += "null".utf8 }
        guard abs(value) < 1e9 else { return bytes += "\(value)".utf8 }
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let scaled = Int((abs(value) * scale).rounded())
        let unit = Int(scale)
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        DecimalText.append(scaled / unit, to: &bytes)
        guard decimals > 0 else { return }
        bytes.append(UInt8(ascii: "."))
        DecimalText.append(scaled % unit, width: decimals, to: &bytes)
    }

    /// `appendFixed`'s text as a string.
    public static func fixed(_ value: Double, _ decimals: Int) -> String {
        var bytes: [UInt8] = []
        appendFixed(value, decimals, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }
}
