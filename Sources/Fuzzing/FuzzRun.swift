internal import Basics

/// Feeds a target its inputs: first every length of each line prefix with
/// four fillers, then mutations of its seeds, up to `count` inputs in all.
public struct FuzzRun: Sendable {
    public static let longestLine = 2048

    public struct Result: Sendable {
        public var inputs = 0
        public var accepted = 0
    }

    public let target: FuzzTarget
    public let seed: UInt64
    /// How many fillers each length of the sweep gets (at most 4: digits,
    /// commas and digits, letters, random bytes).
    public let fillers: Int

    public init(_ target: FuzzTarget, seed: UInt64 = 0x5741_594D_4152_4B, fillers: Int = 4) {
        self.target = target
        self.seed = seed
        self.fillers = max(1, min(4, fillers))
    }

    /// Runs up to `count` inputs (the length sweep always runs whole).
    /// `before` sees each input first, so one that hangs or traps can be kept.
    public func run(count: Int, yieldEvery: Int = 0, yield: () -> Void = {}, before: ([UInt8]) -> Void = { _ in }) -> Result {
        var random = SplitMix64(seed: seed)
        let mutator = Mutator()
        var result = Result()
        func feed(_ input: [UInt8]) {
            before(input)
            if target.parse(input) { result.accepted += 1 }
            result.inputs += 1
            if yieldEvery > 0, result.inputs % yieldEvery == 0 { yield() }
        }
        for prefix in target.prefixes {
            for length in 0...Self.longestLine {
                for filler in 0..<fillers { feed(mutator.padded(prefix, to: length, filler: (length + filler) % 4, &random)) }
            }
        }
        guard !target.seeds.isEmpty else { return result }
        let count = max(target.seeds.count, count / target.costPerInput)
        while result.inputs < count {
            let seed = target.seeds[random.below(target.seeds.count)]
            feed(random.below(16) == 0 ? seed : mutator.mutate(seed, &random))
        }
        return result
    }
}
