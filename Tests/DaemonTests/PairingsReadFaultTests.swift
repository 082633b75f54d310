import Daemon
import Storage
import Store
import PeerHarness
import Telemetry
import Testing

/// The pairings, read while the store refuses them: never "no pairings".
struct PairingsReadFaultTests {
    @Test func pairingsTheStoreCannotGiveForAMomentAreTheLastOnesReadNotNone() async throws {
        let work = try TemporaryDirectory()
        defer { work.remove() }
        let (store, recorder) = try await StoreFaultTests.runningRecorder(work)
        #expect(await recorder.healthSoFar.paired.count == 1)
        try store.database.write { try $0.run("ALTER TABLE pairing RENAME TO pairing_aside") }
        #expect(await recorder.healthSoFar.paired.count == 1, "a failed read is not taken as no pairings")
        try store.database.write { try $0.run("ALTER TABLE pairing_aside RENAME TO pairing") }
        #expect(await recorder.healthSoFar.paired.count == 1)
    }
}
