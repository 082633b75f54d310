/// Why a write log cannot be replayed.
enum WriteLogError: Error, CustomStringConvertible {
    case notALog(String)
    case truncated(offset: UInt64)

    var description: String {
        switch self {
        case .notALog(let path): "\(path) is not a log-writes log (no magic, version 1 and sector size in its super block)"
        case .truncated(let offset): "the write log ends inside the entry at byte \(offset)"
        }
    }
}
