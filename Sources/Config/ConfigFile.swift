import Basics
/// The INI dialect of BlueZ's main.conf and systemd units: `[Section]`
/// headers, `Key = value` lines, and `#` or `;` comments on lines of their own.
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
        for bytes in text.utf8.split(separator: 0x0A, omittingEmptySubsequences: false) {
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
            let value = line[line.index(after: equals)...].trimmingWhitespace()
            guard let section else {
                throw ConfigError(file: file, line: number, key: key, message: "key outside any [Section]")
            }
            guard !key.isEmpty, key.allSatisfy({ $0.isLetter || $0.isNumber }) else {
                throw ConfigError(file: file, line: number, key: "\(section).\(key)", message: "malformed key")
            }
            entries.append(Entry(section: section, key: key, value: value, line: number))
        }
    }
}
