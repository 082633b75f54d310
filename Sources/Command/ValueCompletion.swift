/// What a shell offers for a value or an argument, read from its
/// placeholder: `FILE` files, `DIR` directories, `gpx|geojson|csv` (words
/// in lower case, between bars) those words, anything else nothing.
package enum ValueCompletion: Sendable, Equatable {
    case nothing
    case files
    case directories
    case words([String])

    package init(placeholder: String) {
        let words = placeholder.trimmingCharacters(in: "[]").split(separator: "|").map(String.init)
        if placeholder.contains("FILE") {
            self = .files
        } else if placeholder.contains("DIR") {
            self = .directories
        } else if !words.isEmpty, words.allSatisfy({ !$0.isEmpty && $0.allSatisfy { $0.isLowercase || $0 == "-" } }) {
            self = .words(words)
        } else {
            self = .nothing
        }
    }
}

extension String {
    fileprivate func trimmingCharacters(in set: String) -> String {
        String(drop { set.contains($0) }.reversed().drop { set.contains($0) }.reversed())
    }
}
