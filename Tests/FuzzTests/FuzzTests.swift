import Fuzzing
import Testing

/// The short run of `make fuzz`: every length of every line prefix, then
/// mutations of valid inputs, for each parser of outside bytes. A trap
/// kills the test process, so passing means none was hit; each target must
/// also still accept its unmutated seeds.
struct FuzzTests {
    @Test(arguments: FuzzCatalog.targets.map(\.name))
    func noInputOfAnyLengthOrMutationCrashesTheParser(_ name: String) async throws {
        let target = try #require(FuzzCatalog.targets.first { $0.name == name })
        #expect(target.seeds.prefix(target.validSeeds).allSatisfy(target.parse), "every valid seed is accepted")
        // One filler per length (they take turns), then mutations: `make fuzz` runs all four and 10 M inputs
        // (a tenth of them for the store, whose inputs are files).
        let result = FuzzRun(target, fillers: 1).run(count: 30_000)
        #expect(result.inputs >= 30_000 / target.costPerInput)
        #expect(result.accepted > 0)
    }
}
