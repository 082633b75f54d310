/// The INI dialect of BlueZ's main.conf and systemd units: `[Section]`
/// headers, `Key = value` lines, and `#` or `;` comments on lines of their own.
struct ConfigFile {
    struct Entry {
        var section: String
        var key: String
        var value: String
        var line: Int
    }

    var entries: [Entry] = []

    /// Parses `text`; `file` only names the source in errors.
    init(text: String, file: String) throws(ConfigError) {
        var section: String?
        var number = 0
        // `\r\n` is one Character in Swift, so lines split on any newline.
        for raw in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
            number += 1
            if let control = raw.unicodeScalars.first(where: { ($0.value < 0x20 && $0 != "\t") || $0.value == 0x7F }) {
                let key = raw.split(separator: "=", maxSplits: 1).first.map { $0.trimmingWhitespace() } ?? ""
                throw ConfigError(file: file, line: number, key: section.map { "\($0).\(key)" } ?? key,
                                  message: "control character U+\(String(control.value, radix: 16, uppercase: true)) in the line")
            }
            let line = raw.trimmingWhitespace()
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if line.hasPrefix("[") {
                guard line.hasSuffix("]"), line.count > 2 else {
                    throw ConfigError(file: file, line: number, key: "", message: "malformed section header \(String(line).debugDescription)")
                }
                section = String(line.dropFirst().dropLast()).trimmingWhitespace()
                continue
            }
            guard let equals = line.firstIndex(of: "=") else {
                throw ConfigError(file: file, line: number, key: "", message: "expected `Key = value`, found \(String(line).debugDescription)")
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

extension StringProtocol {
    func trimmingWhitespace() -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }) else { return "" }
        let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })!
        return String(String.UnicodeScalarView(scalars[first...last]))
    }
}
