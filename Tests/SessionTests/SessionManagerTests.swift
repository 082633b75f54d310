import Foundation
import HTTP
import PeerHarness
import Session
import Storage
import Synchronization
import Testing

/// The session against a real glewlwyd and the test backend.
@Suite(.serialized)
struct SessionManagerTests {
    final class Polls: Sendable {
        let seen = Mutex<[DevicePoll]>([])
        func record(_ poll: DevicePoll) { seen.withLock { $0.append(poll) } }
        var all: [DevicePoll] { seen.withLock { $0 } }
    }

    /// Pending, then slow_down (polled too soon), then approved: the session
    /// is persisted with the user's claims, and the account is fetched.
    @Test func deviceLoginApprovedByAScriptedUserIsPersisted() async throws {
        let rig = try SessionRig()
        defer { rig.stop() }
        let code = try await rig.manager.beginDeviceLogin()
        #expect(code.userCode.count >= 8)
        #expect(code.verificationURIComplete?.contains(code.userCode) == true)
        let clock = TestClock()
        let polls = Polls()
        let login = Task { try await rig.manager.finishDeviceLogin(code, clock: clock) { polls.record($0) } }

        try await clock.waitForSleepers(1)
        clock.advance(by: .seconds(1))
        try await clock.waitForSleepers(1)
        // Poll again at once, in real time: glewlwyd asks to slow down.
        clock.advance(by: .seconds(1))
        try await clock.waitForSleepers(1)
        #expect(polls.all == [.pending, .slowDown(interval: 6)])
        // The new interval is kept: five seconds are not enough.
        clock.advance(by: .seconds(5))
        try await Task.sleep(for: .milliseconds(100))
        #expect(clock.sleepers == 1 && polls.all.count == 2)

        try rig.provider.approve(userCode: code.userCode)
        try await Task.sleep(for: .seconds(1.1))
        clock.advance(by: .seconds(1))
        let session = try await login.value
        #expect(session.isAuthorized(now: Date().timeIntervalSince1970))
        #expect(session.claims?.name == "Dana Driver" && session.claims?.email == "dana@example.test")

        let account = try await rig.manager.completeLogin()
        #expect(account == Account(userID: "user-1", vehicleID: "vehicle-7", apiBaseURL: rig.backend.baseURL))
        let stored = try #require(try SessionStore(database: rig.database).load())
        #expect(stored.account == account && stored.hasRefreshToken)
        #expect(!"\(stored)".contains("eyJ"), "descriptions never show a token")
    }

    @Test func anExpiredDeviceCodeEndsWithAClearMessage() async throws {
        let rig = try SessionRig()
        defer { rig.stop() }
        let code = try await rig.manager.beginDeviceLogin()
        // glewlwyd's codes live 6 s here (its clock counts whole seconds):
        // let one run out, then poll once a second until the answer is final.
        try await Task.sleep(for: .seconds(Double(code.expiresIn) + 0.5))
        let clock = TestClock()
        let polls = Polls()
        let login = Task { try await rig.manager.finishDeviceLogin(code, clock: clock) { polls.record($0) } }
        let ticker = Task {
            while !Task.isCancelled {
                try await clock.waitForSleepers(1)
                clock.advance(by: .seconds(1))
                try await Task.sleep(for: .seconds(1))
            }
        }
        defer { ticker.cancel() }
        await #expect(throws: SessionError.deviceCodeExpired) {
            try await withDeadline(.seconds(20), "the expiry") { try await login.value }
        }
        #expect(SessionError.deviceCodeExpired.description.contains("expired"))
        #expect(try SessionStore(database: rig.database).load() == nil)
    }

    @Test func passwordLoginWithAConfidentialClientIsAuthorizedAndAWrongPasswordIsDenied() async throws {
        let rig = try SessionRig()
        defer { rig.stop() }
        await #expect(throws: SessionError.accessDenied) {
            try await rig.manager.loginWithPassword(username: Glewlwyd.username, password: "wrong")
        }
        let session = try await rig.manager.loginWithPassword(username: Glewlwyd.username, password: Glewlwyd.password)
        #expect(session.claims?.subject != nil && session.hasRefreshToken)
        #expect(await rig.manager.isAuthorized)
    }

    /// 5-second access tokens, three expiries, no user action: every call to
    /// the backend (which refuses an expired token) succeeds.
    @Test func refreshKeepsTheSessionAliveAcrossThreeExpiries() async throws {
        let rig = try SessionRig(accessTokenSeconds: 5)
        defer { rig.stop() }
        _ = try await rig.manager.loginWithPassword(username: Glewlwyd.username, password: Glewlwyd.password)
        let keeper = Task { await rig.manager.keepAlive(clock: ContinuousClock()) }
        defer { keeper.cancel() }
        var tokens: Set<String> = []
        let start = ContinuousClock.now
        while ContinuousClock.now - start < .seconds(16) {
            let account = try await rig.manager.fetchAccount()
            #expect(account.userID == "user-1")
            tokens.insert(try await rig.manager.accessToken())
            try await Task.sleep(for: .seconds(1))
        }
        #expect(tokens.count >= 4, "three expiries mean at least three refreshes")
        #expect(await rig.manager.isAuthorized)
    }

    /// One-use refresh tokens: each refresh rotates it, the store always holds
    /// the newest, and a replayed old one is refused.
    @Test func rotatedRefreshTokensAreStoredAndTheOldOnesAreRefused() async throws {
        let rig = try SessionRig(oneUseRefresh: true)
        defer { rig.stop() }
        _ = try await rig.manager.loginWithPassword(username: Glewlwyd.username, password: Glewlwyd.password)
        let store = SessionStore(database: rig.database)
        var previous = try #require(try store.load())
        for _ in 0..<3 {
            _ = try await rig.manager.refresh()
            let current = try #require(try store.load())
            #expect(current != previous)
            previous = current
        }
        // Concurrent callers share one refresh, so one rotation, not five.
        let before = try #require(try store.load())
        try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<5 { group.addTask { try await rig.manager.refresh() } }
            let tokens = try await group.reduce(into: Set<String>()) { $0.insert($1) }
            #expect(tokens.count == 1)
        }
        #expect(try store.load() != before)
        // A new process over the same store carries on from the newest token.
        let next = SessionRig.manager(database: rig.database, provider: rig.provider, backend: rig.backend)
        _ = try await next.refresh()
        #expect(await next.isAuthorized)
    }

    /// Revoked at the provider: the next refresh fails even though glewlwyd
    /// answers with an empty body; the session is refreshRejected, data kept.
    @Test func revocationAtTheProviderGivesRefreshRejectedAndKeepsTheSession() async throws {
        let rig = try SessionRig()
        defer { rig.stop() }
        _ = try await rig.manager.loginWithPassword(username: Glewlwyd.username, password: Glewlwyd.password)
        try await rig.manager.completeLogin()
        let events = rig.manager.events
        try rig.provider.revokeAll()
        await #expect(throws: SessionError.notAuthorized(.refreshRejected)) { try await rig.manager.refresh() }
        #expect(!(await rig.manager.isAuthorized))
        let kept = try #require(try SessionStore(database: rig.database).load())
        #expect(kept.invalidated == .refreshRejected && kept.account != nil)
        var seen: [AuthorizationEvent] = []
        for _ in 0..<2 { seen.append(try await events.next(within: .seconds(5), "an event")) }
        #expect(seen == [.authorized, .notAuthorized(.refreshRejected)])
    }

    @Test func logoutRevokesAtTheProviderAndClearsEvenWhenOffline() async throws {
        let rig = try SessionRig()
        defer { rig.stop() }
        _ = try await rig.manager.loginWithPassword(username: Glewlwyd.username, password: Glewlwyd.password)
        let refreshToken = try #require(try SessionStore(database: rig.database).load()).hasRefreshToken
        #expect(refreshToken)
        await rig.manager.logout()
        #expect(try SessionStore(database: rig.database).load() == nil)

        // Offline: the provider is gone, logout still clears.
        _ = try await rig.manager.loginWithPassword(username: Glewlwyd.username, password: Glewlwyd.password)
        rig.provider.stop()
        let offline = SessionRig.manager(database: rig.database, provider: rig.provider, backend: rig.backend)
        await offline.logout()
        #expect(try SessionStore(database: rig.database).load() == nil)
    }

    @Test func remoteSettingsAreStoredAndALockCommandStopsAuthorizationButKeepsData() async throws {
        let rig = try SessionRig()
        defer { rig.stop() }
        _ = try await rig.manager.loginWithPassword(username: Glewlwyd.username, password: Glewlwyd.password)
        try await rig.manager.completeLogin()
        try rig.backend.setSettings(#"{"settings":{"gap_threshold_s":120,"upload_batch_size":250,"future_key":1},"commands":[{"id":"c1","type":"reboot"}]}"#)
        let settings = try await rig.manager.fetchSettings()
        #expect(settings.gapThreshold == 120 && settings.uploadBatchSize == 250 && settings.commands.isEmpty)
        #expect(try SessionStore(database: rig.database).settings() == settings)
        try rig.backend.setSettings(#"{"settings":{"gap_threshold_s":120},"commands":[{"id":"c2","type":"lock"}]}"#)
        _ = try await FleetPolicy(session: rig.manager, wipe: {}).update()
        #expect(!(await rig.manager.isAuthorized))
        #expect(try SessionStore(database: rig.database).load()?.invalidated == .lockedOut)
    }
}
