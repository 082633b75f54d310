import Foundation
import PeerHarness
import Session
import Storage
import Synchronization
import Testing

/// The fleet's commands are the policy's: the session fetches and stores
/// them, the policy applies each once.
@Suite(.serialized)
struct FleetPolicyTests {
    @Test func theSessionFetchesTheFleetsCommandsAndThePolicyAppliesThemOnce() async throws {
        let rig = try await SessionStoreFaultTests.loggedIn()
        defer { rig.stop() }
        let wipes = Mutex(0)
        let policy = FleetPolicy(session: rig.manager) { wipes.withLock { $0 += 1 } }
        try rig.backend.setSettings(#"{"settings":{},"commands":[{"id":"w1","type":"wipe"},{"id":"l1","type":"lock"}]}"#)
        let settings = try await rig.manager.fetchSettings()
        #expect(settings.commands.map(\.id) == ["w1", "l1"])
        #expect(await rig.manager.isAuthorized, "fetching applies nothing")
        #expect(wipes.withLock { $0 } == 0)

        try await policy.apply(settings.commands)
        #expect(wipes.withLock { $0 } == 1, "the wipe, and nothing after it")
        #expect(await rig.manager.isAuthorized, "the lock after the wipe waits for the next fetch")
        try await policy.apply(settings.commands)
        #expect(wipes.withLock { $0 } == 1, "a command is applied once")
        #expect(!(await rig.manager.isAuthorized), "the lock, new to the store, is applied")
    }
}
