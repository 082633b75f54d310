import Basics
import Testing

/// The daemon's start-up code, unmapped once it runs steadily: resident
/// pages go down, and the process runs on (the code comes back as it is used).
struct StartupPagesTests {
    @Test func unmappingStartupCodeLowersTheResidentSetAndNothingBreaks() {
        let released = StartupPages.release()
        #expect(released.refused == 0, "\(released.reason ?? "")")
        #expect(released.after < released.before, "resident pages \(released.before) → \(released.after)")
        // Code from all over the binary runs again: sorting, hashing, strings.
        let words = (0..<1_000).map { "word \($0 * 7919 % 1_000)" }.sorted()
        #expect(Set(words).count == 1_000 && words.first == "word 0")
    }
}
