extension String {
    /// The text with `&`, `<`, `>`, `"` and `'` escaped, for XML and HTML
    /// text and attribute values.
    public var markupEscaped: String {
        var out = ""
        out.reserveCapacity(utf8.count)
        for character in self {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(character)
            }
        }
        return out
    }
}
