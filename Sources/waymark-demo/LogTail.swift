import Foundation

/// The lines a log file gained since the last look.
struct LogTail {
    let path: String
    private var offset = 0

    init(path: String) { self.path = path }

    mutating func newLines() -> [String] {
        guard let data = FileManager.default.contents(atPath: path), data.count > offset else { return [] }
        let fresh = data[offset...]
        guard let end = fresh.lastIndex(of: UInt8(ascii: "\n")) else { return [] }
        offset = end + 1
        return String(decoding: data[fresh.startIndex..<end], as: UTF8.self).split(separator: "\n").map(String.init)
    }
}
