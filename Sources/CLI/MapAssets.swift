import FoundationEssentials

/// Leaflet from Debian's `libjs-leaflet`, to be inlined into a report: its
/// script and style, read once. Nil where the package is not installed;
/// the report then draws its track as SVG.
struct MapAssets {
    static let directory = "/usr/share/javascript/leaflet"

    let script: String
    let style: String

    static func installed(in directory: String = Self.directory) -> MapAssets? {
        guard let script = try? String(contentsOfFile: directory + "/leaflet.min.js", encoding: .utf8),
              let style = try? String(contentsOfFile: directory + "/leaflet.css", encoding: .utf8) else { return nil }
        return MapAssets(script: inlined(script, closing: "</script"), style: inlined(style, closing: "</style"))
    }

    /// The text without its source-map comment (no file to fetch beside a
    /// report) and unable to close the element it is inlined in.
    static func inlined(_ text: String, closing tag: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !$0.hasPrefix("//# sourceMappingURL") && !$0.hasPrefix("/*# sourceMappingURL") }
            .joined(separator: "\n")
            .replacing(tag, with: "<\\/" + tag.dropFirst(2))
    }
}
