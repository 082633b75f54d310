import Foundation
import PeerHarness
import Session
import Storage
import Testing

/// The session against a store that fails, with the faults made by SQL on
/// the store itself: a table out of reach, a trigger that refuses a write.
@Suite(.serialized)
struct SessionStoreFaultTests {
    static func loggedIn() async throws -> SessionRig {
        let rig = try SessionRig()
        _ = try await rig.manager.loginWithPassword(username: Glewlwyd.username, password: Glewlwyd.password)
        try await rig.manager.completeLogin()
        return rig
    }

    @Test func aSessionTheStoreCannotReadIsNotALogout() async throws {
        let rig = try await Self.loggedIn()
        defer { rig.stop() }
        #expect(await rig.manager.isAuthorized)
        try rig.database.write { try $0.run("ALTER TABLE session RENAME TO session_out_of_reach") }
        #expect(await rig.manager.isAuthorized, "a read error keeps the last state read")
        try rig.database.write { try $0.run("ALTER TABLE session_out_of_reach RENAME TO session") }
        #expect(await rig.manager.isAuthorized)
        await rig.manager.logout()
        #expect(!(await rig.manager.isAuthorized), "and a read that succeeds is the answer again")
    }

    @Test func aLockTheStoreCannotRecordAsAppliedIsAppliedAnyway() async throws {
        let rig = try await Self.loggedIn()
        defer { rig.stop() }
        try rig.database.write { try $0.run("CREATE TRIGGER injected BEFORE INSERT ON applied_command BEGIN SELECT RAISE(ABORT, 'injected fault'); END") }
        try rig.backend.setSettings(#"{"settings":{},"commands":[{"id":"c7","type":"lock"}]}"#)
        _ = try await FleetPolicy(session: rig.manager, wipe: {}).update()
        #expect(!(await rig.manager.isAuthorized))
        #expect(try SessionStore(database: rig.database).load()?.invalidated == .lockedOut)
    }

    @Test func aLockAppliedBeforeIsNotAppliedAgainWhenItsRecordCannotBeWritten() async throws {
        let rig = try await Self.loggedIn()
        defer { rig.stop() }
        try rig.backend.setSettings(#"{"settings":{},"commands":[{"id":"c8","type":"lock"}]}"#)
        _ = try await FleetPolicy(session: rig.manager, wipe: {}).update()
        #expect(!(await rig.manager.isAuthorized))
        _ = try await rig.manager.loginWithPassword(username: Glewlwyd.username, password: Glewlwyd.password)
        try rig.database.write { try $0.run("CREATE TRIGGER injected BEFORE INSERT ON applied_command BEGIN SELECT RAISE(ABORT, 'injected fault'); END") }
        _ = try await FleetPolicy(session: rig.manager, wipe: {}).update()
        #expect(await rig.manager.isAuthorized, "the store says c8 was applied: the new login stands")
    }
}
