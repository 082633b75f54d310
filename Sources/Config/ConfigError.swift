/// A configuration problem, located by file, line and key. The daemon exits
/// with EX_CONFIG (78) and prints `description` as its one line.
public struct ConfigError: Error, Sendable, Equatable, CustomStringConvertible {
    public var file: String
    /// 1-based; 0 when the problem is not on a line (the file cannot be read).
    public var line: Int
    /// `Section.Key`, or the section alone, or empty for a syntax error.
    public var key: String
    public var message: String

    public init(file: String, line: Int, key: String, message: String) {
        self.file = file
        self.line = line
        self.key = key
        self.message = message
    }

    public var description: String {
        let place = line > 0 ? "\(file):\(line)" : file
        return key.isEmpty ? "\(place): \(message)" : "\(place): \(key): \(message)"
    }
}
