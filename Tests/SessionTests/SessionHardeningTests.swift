import Foundation
import HTTP
import PeerHarness
@testable import Session
import Storage
import Testing

/// The session against a provider that misbehaves: glewlwyd behind a proxy
/// that rewrites, delays and counts its answers.
@Suite(.serialized)
struct SessionHardeningTests {
    struct Rig {
        let directory: TemporaryDirectory
        let provider: Glewlwyd
        let proxy: OIDCFaultProxy
        let backend: IngestServer
        let database: Database

        init(accessTokenSeconds: Int = 3600, oneUseRefresh: Bool = false) throws {
            directory = try TemporaryDirectory("waymark-session-hardening")
            (provider, proxy) = try OIDCFaultProxy.inFrontOfGlewlwyd(directory: directory, accessTokenSeconds: accessTokenSeconds,
                                                                      oneUseRefresh: oneUseRefresh)
            backend = try IngestServer(directory: directory)
            database = try SessionRig.openStore(directory)
        }

        /// A manager as one gateway process builds it.
        func manager() -> SessionManager {
            Glewlwyd.sessionManager(issuer: proxy.issuer, backend: backend.baseURL, database: database)
        }

        /// Refreshes with `manager` while glewlwyd's answer, already given, is
        /// held back for a second; `meanwhile` runs while it is out. Returns
        /// the refresh's outcome.
        func refresh(_ manager: SessionManager, meanwhile: () async throws -> Void) async throws -> Result<String, SessionError> {
            try proxy.setFaults(#"{"delay":{"grant":"refresh_token","seconds":1}}"#)
            let refresh = Task { () async -> Result<String, SessionError> in
                do throws(SessionError) { return .success(try await manager.refresh()) } catch { return .failure(error) }
            }
            try await Task.sleep(for: .milliseconds(300))
            try await meanwhile()
            return await refresh.value
        }

        func stop() {
            proxy.stop()
            provider.stop()
            backend.stop()
            directory.remove()
        }
    }

    /// A token answer with no usable `expires_in` (missing, 0, negative, out
    /// of range): the token is used until the backend refuses it, and the
    /// refusals then cause at most one refresh per minimum interval, not a
    /// refresh per call.
    @Test(arguments: [#"{"drop":["expires_in"]}"#, #"{"set":{"expires_in":"0"}}"#, #"{"set":{"expires_in":"-5"}}"#,
                      #"{"set":{"expires_in":"1e400"}}"#, #"{"set":{"expires_in":"\"soon\""}}"#])
    func aTokenWithoutALifetimeIsRefreshedOnlyWhenRefusedAndNotInALoop(_ fault: String) async throws {
        let rig = try Rig(accessTokenSeconds: 2)
        defer { rig.stop() }
        try rig.proxy.setFaults(#"{"token":\#(fault)}"#)
        let manager = rig.manager()
        _ = try await manager.loginWithPassword(username: Glewlwyd.username, password: Glewlwyd.password)
        #expect(try SessionStore(database: rig.database).load()?.accessExpiresAt == nil)
        let keeper = Task { await manager.keepAlive(clock: ContinuousClock()) }
        defer { keeper.cancel() }
        var answered = 0, refused = 0
        let start = ContinuousClock.now
        while ContinuousClock.now - start < .seconds(5) {
            do {
                _ = try await manager.fetchAccount()
                answered += 1
            } catch {
                if case .refused(_, 401, _) = error { refused += 1 } else { Issue.record("\(error)") }
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        // glewlwyd's tokens live 2 s: the first refusal refreshes once; the
        // next ones come within the 30 s spacing and are passed back.
        #expect(try rig.proxy.counts()["refresh_token"] == 1)
        #expect(answered > 0 && refused > 0)
        #expect(await manager.isAuthorized)
    }

    /// The store cannot be read for a while (here its table is moved away):
    /// keepAlive reads it again after its retry period, on its clock, and
    /// goes on keeping the session alive, rather than ending for good.
    @Test func keepAliveSurvivesAStoreThatCannotBeReadForAWhile() async throws {
        let rig = try Rig()
        defer { rig.stop() }
        let manager = rig.manager()
        _ = try await manager.loginWithPassword(username: Glewlwyd.username, password: Glewlwyd.password)
        try rig.database.write { try $0.run("ALTER TABLE session RENAME TO session_aside") }
        let clock = TestClock()
        let keeper = Task { await manager.keepAlive(clock: clock, retry: .seconds(30)) }
        defer { keeper.cancel() }
        try await clock.waitForSleepers(1)
        try rig.database.write { try $0.run("ALTER TABLE session_aside RENAME TO session") }
        clock.advance(by: .seconds(30))
        // Read again: now it sleeps until the token is due for a refresh.
        try await clock.waitForSleepers(1)
        #expect(clock.now.offset == .seconds(30))
        #expect(await manager.isAuthorized)
    }

    /// An expiry far in the future (or infinite) in the store: keepAlive
    /// sleeps a day at a time instead of trapping on the conversion.
    @Test(arguments: ["1e300", "9e999"])
    func anAbsurdStoredExpiryIsSleptOnNotTrappedOn(_ literal: String) async throws {
        let rig = try Rig()
        defer { rig.stop() }
        let manager = rig.manager()
        _ = try await manager.loginWithPassword(username: Glewlwyd.username, password: Glewlwyd.password)
        try rig.database.write { try $0.run("UPDATE session SET access_expires_at = \(literal)") }
        let clock = TestClock()
        let keeper = Task { await manager.keepAlive(clock: clock) }
        defer { keeper.cancel() }
        try await clock.waitForSleepers(1)
        clock.advance(by: .seconds(86_400))
        try await clock.waitForSleepers(1)
        #expect(try rig.proxy.counts()["refresh_token"] == nil)
        #expect(try await manager.accessToken().isEmpty == false)
    }

    /// `waymark logout` from another process while the daemon's refresh is
    /// out: the logout stands, and the tokens that refresh brought are revoked.
    @Test func aLogoutDuringARefreshInFlightStandsAndTheNewTokensAreRevoked() async throws {
        // Rotating refresh tokens, so the refresh brings a new one to revoke.
        let rig = try Rig(oneUseRefresh: true)
        defer { rig.stop() }
        let daemon = rig.manager()
        _ = try await daemon.loginWithPassword(username: Glewlwyd.username, password: Glewlwyd.password)
        let outcome = try await rig.refresh(daemon) { await rig.manager().logout() }
        #expect(outcome == .failure(.notLoggedIn))
        #expect(try SessionStore(database: rig.database).load() == nil)
        #expect(!(await daemon.isAuthorized))
        // The refresh token glewlwyd issued meanwhile no longer works.
        let issued = try #require(try rig.proxy.lastTokenAnswer()["refresh_token"] as? String)
        let reuse = try await HTTPClient().send(.form(rig.provider.issuer.replacingOccurrences(of: "\(rig.proxy.port)", with: "\(rig.provider.port)") + "/token",
            [("grant_type", "refresh_token"), ("refresh_token", issued)],
            headers: [("Authorization", "Basic " + Data("\(Glewlwyd.clientID):\(Glewlwyd.clientSecret)".utf8).base64EncodedString())]))
        #expect([400, 401, 403].contains(reuse.status), "glewlwyd answered \(reuse.status) to the revoked token")
    }

    /// A refresh that commits while `waymark logout` waits for the provider
    /// to revoke (held here by the proxy): the logout stands, and the last
    /// refresh token the provider issued no longer works.
    @Test func aRefreshWhileLogoutRevokesLeavesNoTokenUnrevoked() async throws {
        let rig = try Rig(oneUseRefresh: true)
        defer { rig.stop() }
        let daemon = rig.manager()
        _ = try await daemon.loginWithPassword(username: Glewlwyd.username, password: Glewlwyd.password)
        try rig.proxy.setFaults(#"{"delay_revocation": 1}"#)
        let logout = Task { await rig.manager().logout() }
        // The logout is inside its revocation, held by the proxy.
        try await Task.sleep(for: .milliseconds(300))
        let refreshed: Result<String, SessionError>
        do throws(SessionError) { refreshed = .success(try await daemon.refresh()) } catch { refreshed = .failure(error) }
        await logout.value
        #expect(try SessionStore(database: rig.database).load() == nil, "refreshed: \(refreshed)")
        #expect(!(await daemon.isAuthorized))
        let issued = try #require(try rig.proxy.lastTokenAnswer()["refresh_token"] as? String)
        let reuse = try await HTTPClient().send(.form(rig.provider.issuer.replacingOccurrences(of: "\(rig.proxy.port)", with: "\(rig.provider.port)") + "/token",
            [("grant_type", "refresh_token"), ("refresh_token", issued)],
            headers: [("Authorization", "Basic " + Data("\(Glewlwyd.clientID):\(Glewlwyd.clientSecret)".utf8).base64EncodedString())]))
        #expect([400, 401, 403].contains(reuse.status), "glewlwyd answered \(reuse.status) to the last refresh token it issued")
    }

    /// A lock from the fleet while a refresh is out: the lock stands.
    @Test func aLockDuringARefreshInFlightStands() async throws {
        let rig = try Rig()
        defer { rig.stop() }
        let manager = rig.manager()
        _ = try await manager.loginWithPassword(username: Glewlwyd.username, password: Glewlwyd.password)
        try await manager.completeLogin()
        try rig.backend.setSettings(#"{"settings":{},"commands":[{"id":"lock-1","type":"lock"}]}"#)
        let policy = FleetPolicy(session: manager, wipe: {})
        let outcome = try await rig.refresh(manager) { _ = try await policy.update() }
        #expect(outcome == .failure(.notAuthorized(.lockedOut)))
        #expect(try SessionStore(database: rig.database).load()?.invalidated == .lockedOut)
        #expect(!(await manager.isAuthorized))
    }

    /// A wipe from the fleet while a refresh is out: the session stays gone.
    @Test func aWipeDuringARefreshInFlightStands() async throws {
        let rig = try Rig()
        defer { rig.stop() }
        let store = SessionStore(database: rig.database)
        let manager = SessionManager(
            configuration: SessionConfiguration(issuer: rig.proxy.issuer, clientID: Glewlwyd.clientID, clientSecret: Glewlwyd.clientSecret,
                                                scopes: ["openid", "waymark"], backendBaseURL: rig.backend.baseURL),
            store: store, http: HTTPClient())
        let policy = FleetPolicy(session: manager, wipe: { try store.clearForLogout() })
        _ = try await manager.loginWithPassword(username: Glewlwyd.username, password: Glewlwyd.password)
        try await manager.completeLogin()
        try rig.backend.setSettings(#"{"settings":{},"commands":[{"id":"wipe-1","type":"wipe"}]}"#)
        let outcome = try await rig.refresh(manager) { _ = try await policy.update() }
        #expect(outcome == .failure(.notLoggedIn))
        #expect(try store.load() == nil, "the refresh did not bring the session back")
        #expect(!(await manager.isAuthorized))
    }

    /// One-use refresh tokens: a process that died with a refresh out left
    /// the provider holding a rotated token the store never saw. The refusal
    /// that follows is reported as such, not as a revocation.
    @Test func aRefusalAfterARefreshLeftInFlightIsReportedAsARaceLost() async throws {
        let rig = try Rig(oneUseRefresh: true)
        defer { rig.stop() }
        let dead = rig.manager()
        _ = try await dead.loginWithPassword(username: Glewlwyd.username, password: Glewlwyd.password)
        // The dead process's refresh: marked in flight and answered by glewlwyd,
        // which rotated the token; the process never stored the answer.
        try rig.proxy.setFaults(#"{"delay":{"grant":"refresh_token","seconds":2}}"#)
        let lost = Task { try await dead.refresh() }
        try await Task.sleep(for: .milliseconds(500))
        #expect(try rig.database.read { try $0.scalar("SELECT refresh_started_at FROM session")?.real } != nil)
        let stored = try #require(try SessionStore(database: rig.database).load())
        try await Task.sleep(for: .seconds(2))
        // Put back the session as the dead process left it (its own commit never happened).
        lost.cancel()
        _ = try? await lost.value
        try rig.database.write { try $0.run("UPDATE session SET refresh_token = ?, refresh_started_at = 1", [.text(Self.refreshToken(stored))]) }
        try rig.proxy.setFaults("{}")
        let next = rig.manager()
        await #expect(throws: SessionError.notAuthorized(.refreshRaceLost)) { try await next.refresh() }
        #expect(try SessionStore(database: rig.database).load()?.invalidated == .refreshRaceLost)
    }

    static func refreshToken(_ session: PersistedSession) -> String { session.refreshToken ?? "" }

    /// Discovery may not send tokens anywhere the issuer itself could not be.
    @Test(arguments: [
        #"{"token_endpoint":"http://evil.example/token"}"#, #"{"token_endpoint":"http://127.0.0.1.evil.example/token"}"#,
        #"{"revocation_endpoint":"ftp://127.0.0.1/revoke"}"#, #"{"device_authorization_endpoint":"http://10.0.0.1/device"}"#,
    ])
    func discoveryEndpointsFollowTheIssuersURLRule(_ discovery: String) async throws {
        let rig = try Rig()
        defer { rig.stop() }
        try rig.proxy.setFaults(#"{"discovery":\#(discovery)}"#)
        // A do/catch, not the error `#expect(throws:)` returns: that needs Swift Testing 6.1.
        do {
            _ = try await rig.manager().loginWithPassword(username: Glewlwyd.username, password: Glewlwyd.password)
            Issue.record("the login was not refused")
        } catch {
            let refusal = "\(error)"
            #expect(refusal.contains("endpoint"), "\(refusal)")
        }
        #expect(try rig.proxy.counts()["password"] == nil, "no password was sent")
    }

    /// A refreshed id_token is checked like the first one.
    @Test func aRefreshedIDTokenForAnotherAudienceIsRefused() async throws {
        let rig = try Rig()
        defer { rig.stop() }
        let manager = rig.manager()
        _ = try await manager.loginWithPassword(username: Glewlwyd.username, password: Glewlwyd.password)
        let foreign = Self.jwt(["sub": "x", "iss": rig.proxy.issuer, "aud": "someone-else", "exp": Date().timeIntervalSince1970 + 600])
        try rig.proxy.setFaults(#"{"token":{"grant":"refresh_token","set":{"id_token":"\"\#(foreign)\""}}}"#)
        await #expect(throws: SessionError.invalidIDToken("audience does not include \(Glewlwyd.clientID)")) { try await manager.refresh() }
    }

    @Test func severalAudiencesNeedAnAuthorizedPartyThatIsUs() throws {
        let now = Date().timeIntervalSince1970
        func check(_ claims: [String: Any]) throws(SessionError) {
            _ = try IDTokenClaims(token: Self.jwt(claims.merging(["sub": "s", "iss": "https://id.example", "exp": now + 60]) { $1 }),
                                  issuer: "https://id.example", clientID: "waymark", now: now)
        }
        #expect(throws: Never.self) { try check(["aud": ["waymark", "other"], "azp": "waymark"]) }
        #expect(throws: Never.self) { try check(["aud": "waymark"]) }
        #expect(throws: SessionError.invalidIDToken("several audiences and no azp")) { try check(["aud": ["waymark", "other"]]) }
        #expect(throws: SessionError.invalidIDToken("azp other is not waymark")) { try check(["aud": ["waymark", "other"], "azp": "other"]) }
    }

    @Test(arguments: [
        ("http://127.0.0.1:8080/x", true), ("http://127.1.2.3/", true), ("http://[::1]:80/", true), ("http://localhost/", true),
        ("https://fleet.example/", true), ("http://127.0.0.1.evil.example/", false), ("http://127.evil.example/", false),
        ("http://localhost.evil.example/", false), ("http://[::2]/", false), ("http://0x7f000001/", false), ("http://user@127.0.0.1/", false),
    ])
    func plainHTTPIsOnlyForLoopbackLiterals(_ url: String, _ accepted: Bool) {
        #expect((EndpointURL.validate(url) == nil) == accepted, "\(url)")
    }

    /// Settings from the fleet that are not numbers in range are ignored,
    /// each named, and never trap.
    @Test func outOfRangeRemoteSettingsAreIgnoredNotTrappedOn() async throws {
        let rig = try Rig()
        defer { rig.stop() }
        let manager = rig.manager()
        _ = try await manager.loginWithPassword(username: Glewlwyd.username, password: Glewlwyd.password)
        try await manager.completeLogin()
        try rig.backend.setSettings(#"{"settings":{"upload_batch_size":1e300,"gap_threshold_s":-1,"scan_watchdog_s":"x","device_expiry_s":90},"commands":[]}"#)
        let settings = try await manager.fetchSettings()
        #expect(settings.uploadBatchSize == nil && settings.gapThreshold == nil && settings.scanWatchdog == nil)
        #expect(settings.deviceExpiry == 90)
        #expect(settings.ignored.sorted() == ["gap_threshold_s", "scan_watchdog_s", "upload_batch_size"])
    }

    static func jwt(_ claims: [String: Any]) -> String {
        func part(_ data: Data) -> String {
            data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
        }
        return part(Data(#"{"alg":"none"}"#.utf8)) + "." + part(try! JSONSerialization.data(withJSONObject: claims)) + ".sig"
    }
}
