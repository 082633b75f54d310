/// One parser under fuzzing: valid inputs to start from, the line prefixes
/// to sweep through every length, and the call that must never trap.
public struct FuzzTarget: Sendable {
    public let name: String
    public let seeds: [[UInt8]]
    /// For line parsers: each is extended to every length from 0 to `FuzzRun.longestLine`.
    public let prefixes: [[UInt8]]
    /// Parses one input; returns whether it was accepted (for the report).
    public let parse: @Sendable ([UInt8]) -> Bool

    public init(name: String, seeds: [[UInt8]], prefixes: [[UInt8]] = [], parse: @escaping @Sendable ([UInt8]) -> Bool) {
        self.name = name
        self.seeds = seeds
        self.prefixes = prefixes
        self.parse = parse
    }
}
