/// One parser under fuzzing: valid inputs to start from, the line prefixes
/// to sweep through every length, and the call that must never trap.
public struct FuzzTarget: Sendable {
    public let name: String
    public let seeds: [[UInt8]]
    /// For line parsers: each is extended to every length from 0 to `FuzzRun.longestLine`.
    public let prefixes: [[UInt8]]
    /// Parses one input; returns whether it was accepted (for the report).
    public let parse: @Sendable ([UInt8]) -> Bool
    /// How many parser inputs one of this target's costs: a run gives it
    /// that many times fewer (a store is a file to write and open, a line
    /// is a buffer).
    public let costPerInput: Int
    /// The seeds that are valid input (the first ones); the rest are damaged on purpose.
    public let validSeeds: Int

    public init(name: String, seeds: [[UInt8]], validSeeds: Int? = nil, prefixes: [[UInt8]] = [], costPerInput: Int = 1,
                parse: @escaping @Sendable ([UInt8]) -> Bool) {
        self.name = name
        self.seeds = seeds
        self.validSeeds = validSeeds ?? seeds.count
        self.prefixes = prefixes
        self.costPerInput = max(1, costPerInput)
        self.parse = parse
    }
}
