import Foundation

/// The user's documentation as the tests read it: the README and the
/// manual's pages in `docs/`, with their fenced code blocks.
public enum Manual {
    /// Every page, by its path in the checkout (`README.md`, `docs/install.md`, …).
    public static func pages() throws -> [(path: String, text: String)] {
        let docs = try FileManager.default.contentsOfDirectory(atPath: Checkout.path("docs")).filter { $0.hasSuffix(".md") }.sorted()
        return try (["README.md"] + docs.map { "docs/" + $0 }).map { ($0, try String(contentsOfFile: Checkout.path($0), encoding: .utf8)) }
    }

    /// The fenced blocks of `language` (`sh`, `ini`, …) in `text`, in order, without their fences.
    public static func blocks(_ language: String, in text: String) -> [String] {
        var blocks: [String] = [], current: [Substring]?, fence: Substring?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.drop { $0 == " " }
            if let open = fence {
                if trimmed == open.prefix(3) {
                    if let current { blocks.append(current.joined(separator: "\n")) }
                    (current, fence) = (nil, nil)
                } else {
                    current?.append(trimmed)
                }
            } else if trimmed.hasPrefix("```") {
                fence = trimmed
                current = trimmed.dropFirst(3) == language ? [] : nil
            }
        }
        return blocks
    }

    /// The page's headings' anchors as GitHub makes them: lower case, only
    /// letters, digits, spaces, hyphens and underscores kept, spaces as
    /// hyphens, and a repeated one suffixed `-1`, `-2`, …
    public static func anchors(in text: String) -> Set<String> {
        var anchors: Set<String> = [], seen: [String: Int] = [:], inFence = false
        for line in text.split(separator: "\n") {
            if line.drop(while: { $0 == " " }).hasPrefix("```") { inFence.toggle() }
            guard !inFence, line.hasPrefix("#") else { continue }
            let title = line.drop { $0 == "#" }.trimmingCharacters(in: .whitespaces)
            let slug = String(title.lowercased().compactMap { character -> Character? in
                character == " " ? "-" : character.isLetter || character.isNumber || character == "-" || character == "_" ? character : nil
            })
            let count = seen[slug, default: 0]
            anchors.insert(count == 0 ? slug : "\(slug)-\(count)")
            seen[slug] = count + 1
        }
        return anchors
    }
}
