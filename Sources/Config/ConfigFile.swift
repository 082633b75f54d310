import Basics
/// The INI dialect of BlueZ's main.conf and systemd units: `[Section]`
/// headers, `Key = value` lines, and `#` or `;` comments on lines of their
/// own or after a value (after white space); a value in double quotes keeps
/// them. A UTF-8 byte order mark at the start is skipped.
package struct ConfigFile {
    package struct Entry {
        var section: String
        var key: String
        var value: String
        var line: Int
    }

    package var entries: [Entry] = []

    /// Parses `text`; `file` only names the source in errors.
    package init(text: String, file: String) throws(ConfigError) {
        var section: String?
        var number = 0
        // Lines end in LF or CRLF. Split on bytes: `\r\n` is one Character.
        let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
        let utf8 = text.utf8.starts(with: bom) ? text.utf8.dropFirst(bom.count) : text.utf8.dropFirst(0)
        for bytes in utf8.split(separator: 0x0A, omittingEmptySubsequences: false) {
            number += 1
            let body = bytes.last == 0x0D ? bytes.dropLast() : bytes
            if let control = body.first(where: { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }) {
                let key = Substring(body).split(separator: "=", maxSplits: 1).first.map { $0.trimmingWhitespace() } ?? ""
                throw ConfigError(file: file, line: number, key: section.map { "\($0).\(key)" } ?? key,
                                  message: "control character U+\(String(control, radix: 16, uppercase: true)) in the line")
            }
            let line = Substring(body).trimmingWhitespace()
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if line.hasPrefix("[") {
                guard line.hasSuffix("]"), line.count > 2 else {
                    throw ConfigError(file: file, line: number, key: "", message: "malformed section header \(line.quotedForMessage)")
                }
                section = String(line.dropFirst().dropLast()).trimmingWhitespace()
                continue
            }
            guard let equals = line.firstIndex(of: "=") else {
                throw ConfigError(file: file, line: number, key: "", message: "expected `Key = value`, found \(line.quotedForMessage)")
            }
            let key = line[..<equals].trimmingWhitespace()
            guard let section else {
                throw ConfigError(file: file, line: number, key: key, message: "key outside any [Section]")
            }
            guard !key.isEmpty, key.allSatisfy({ $0.isLetter || $0.isNumber }) else {
                throw ConfigError(file: file, line: number, key: "\(section).\(key)", message: "malformed key")
            }
            let value = try Self.value(of: line[line.index(after: equals)...], file: file, line: number, key: "\(section).\(key)")
            entries.append(Entry(section: section, key: key, value: value, line: number))
        }
    }

    /// The text after `=`: unquoted, up to a `#` or `;` that follows white
    /// space; quoted (`"…"`), everything between the quotes, then only a comment.
    private static func value(of text: Substring, file: String, line: Int, key: String) throws(ConfigError) -> String {
        let text = text.trimmingWhitespace()
        if text.hasPrefix("\"") {
            let inner = text.dropFirst()
            guard let close = inner.firstIndex(of: "\"") else {
                throw ConfigError(file: file, line: line, key: key, message: "a quoted value has no closing \"")
            }
            let rest = inner[inner.index(after: close)...].trimmingWhitespace()
            guard rest.isEmpty || rest.hasPrefix("#") || rest.hasPrefix(";") else {
                throw ConfigError(file: file, line: line, key: key, message: "only a comment may follow a quoted value, found \(rest.quotedForMessage)")
            }
            return String(inner[..<close])
        }
        var previous: Character = " "
        for index in text.indices {
            let character = text[index]
            if character == "#" || character == ";", previous == " " || previous == "\t" {
                return text[..<index].trimmingWhitespace()
            }
            previous = character
        }
        return text
    }
}
