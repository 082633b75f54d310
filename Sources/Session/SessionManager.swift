internal import Basics
public import FoundationEssentials
public import HTTP
internal import Logging

/// Logs in (device code or password), keeps the session alive by refreshing,
/// and tells everyone when it stops being authorized. The session lives in
/// the store: a new process finds it there and is authorized without logging
/// in again. Only `logout()` clears it.
public actor SessionManager {
    public nonisolated let events: AsyncStream<AuthorizationEvent>
    private let sink: AsyncStream<AuthorizationEvent>.Continuation
    public nonisolated let configuration: SessionConfiguration
    public nonisolated let store: SessionStore
    let http: HTTPClient
    /// Wall-clock seconds since 1970 (tokens carry absolute expiry times).
    nonisolated let now: @Sendable () -> Double
    /// Returns why an account's API base URL is unacceptable, or nil.
    let checkURL: @Sendable (String) -> String?
    private var metadata: ProviderMetadata?
    /// Remote settings already logged as ignored, so each is logged once.
    private var ignoredSettings: Set<String> = []
    /// The last answer `isAuthorized` read from the store, for when a read fails.
    private var lastAuthorized = false
    private var refreshing: Task<Result<String, SessionError>, Never>?

    public init(
        configuration: SessionConfiguration, store: SessionStore, http: HTTPClient,
        now: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 },
        checkURL: @escaping @Sendable (String) -> String? = EndpointURL.validate
    ) {
        self.configuration = configuration
        self.store = store
        self.http = http
        self.now = now
        self.checkURL = checkURL
        (events, sink) = AsyncStream.makeStream(of: AuthorizationEvent.self, bufferingPolicy: .bufferingNewest(64))
    }

    // MARK: state

    public func current() throws(SessionError) -> PersistedSession? {
        do { return try store.load() } catch { throw .configuration("cannot read the session from the store: \(error)") }
    }

    /// True while the persisted session has a usable refresh token (or an
    /// unexpired access token) and has not been invalidated. Reads the store
    /// only; never contacts the provider. A store that cannot be read (busy,
    /// an I/O error) is not a logout: the last answer read stands, the
    /// failure is logged, and the next call reads again.
    public var isAuthorized: Bool {
        do {
            let authorized = try store.load()?.isAuthorized(now: now()) ?? false
            lastAuthorized = authorized
            return authorized
        } catch {
            Log.error("session: cannot read the session from the store (\(error)); keeping the last state read (\(lastAuthorized ? "authorized" : "not authorized")) until a read succeeds")
            return lastAuthorized
        }
    }

    // MARK: provider

    public func discover(timeout: Duration = .seconds(30)) async throws(SessionError) -> ProviderMetadata {
        if let metadata { return metadata }
        let issuer = configuration.issuer.hasSuffix("/") ? String(configuration.issuer.dropLast()) : configuration.issuer
        guard !issuer.isEmpty else { throw .configuration("[Session] Issuer is not set") }
        let url = issuer + "/.well-known/openid-configuration"
        let response = try await send(HTTPRequest(url: url, timeout: timeout))
        guard response.status == 200 else { throw .refused(url: url, status: response.status, error: nil) }
        let found: ProviderMetadata = try decode(response, url)
        guard found.issuer == issuer || found.issuer == issuer + "/" else {
            throw .malformed(url: url, detail: "issuer \(found.issuer) does not match the configured \(issuer)")
        }
        // Tokens and secrets go to these: the same rule as for the issuer.
        for (name, endpoint) in [("token_endpoint", found.tokenEndpoint), ("device_authorization_endpoint", found.deviceAuthorizationEndpoint),
                                 ("revocation_endpoint", found.revocationEndpoint)] {
            if let endpoint, let problem = checkURL(endpoint) { throw .malformed(url: url, detail: "\(name) \(problem)") }
        }
        metadata = found
        return found
    }

    /// Client authentication: HTTP Basic for a confidential client, `client_id` for a public one.
    private func clientAuthentication() -> (headers: [(name: String, value: String)], fields: [(String, String)]) {
        guard let secret = configuration.clientSecret else { return ([], [("client_id", configuration.clientID)]) }
        let pair = HTTPRequest.formEncodeForBasic(configuration.clientID) + ":" + HTTPRequest.formEncodeForBasic(secret)
        return ([("Authorization", "Basic " + Data(pair.utf8).base64EncodedString())], [])
    }

    private func tokenRequest(_ fields: [(String, String)]) async throws(SessionError) -> (HTTPResponse, String) {
        let endpoint = try await discover().tokenEndpoint
        let auth = clientAuthentication()
        return (try await send(.form(endpoint, fields + auth.fields, headers: auth.headers)), endpoint)
    }

    // MARK: login

    /// Starts a device login (RFC 8628 §3.1).
    public func beginDeviceLogin() async throws(SessionError) -> DeviceCode {
        guard let endpoint = try await discover().deviceAuthorizationEndpoint else {
            throw .configuration("the provider offers no device login; use waymark login --username")
        }
        let auth = clientAuthentication()
        let response = try await send(.form(endpoint, [("scope", configuration.scopes.joined(separator: " "))] + auth.fields, headers: auth.headers))
        guard response.isSuccess else { throw .refused(url: endpoint, status: response.status, error: Self.oauthError(response)) }
        return try decode(response, endpoint)
    }

    /// Polls until the user approves (RFC 8628 §3.4–3.5): waits `interval`
    /// between polls, adds 5 s on `slow_down` and keeps it, stops on
    /// `expired_token`, `access_denied`, the code's lifetime, or cancellation.
    public func finishDeviceLogin<C: Clock>(
        _ code: DeviceCode, clock: C, progress: @Sendable (DevicePoll) -> Void = { _ in }
    ) async throws(SessionError) -> PersistedSession where C.Duration == Duration {
        var interval = max(1, code.interval ?? 5)
        var waited = 0
        while true {
            do { try await clock.sleep(for: .seconds(interval)) } catch { throw .cancelled }
            waited += interval
            let (response, endpoint) = try await tokenRequest([
                ("grant_type", "urn:ietf:params:oauth:grant-type:device_code"), ("device_code", code.deviceCode),
            ])
            if response.isSuccess { return try establish(try decode(response, endpoint)) }
            switch Self.oauthError(response) {
            case "authorization_pending"?:
                progress(.pending)
            case "slow_down"?:
                interval += 5
                progress(.slowDown(interval: interval))
            case "expired_token"?:
                throw .deviceCodeExpired
            case "access_denied"?:
                throw .accessDenied
            case let error:
                throw .refused(url: endpoint, status: response.status, error: error)
            }
            if waited >= code.expiresIn { throw .deviceCodeExpired }
        }
    }

    /// The resource owner password grant (RFC 6749 §4.3).
    public func loginWithPassword(username: String, password: String) async throws(SessionError) -> PersistedSession {
        let (response, endpoint) = try await tokenRequest([
            ("grant_type", "password"), ("username", username), ("password", password),
            ("scope", configuration.scopes.joined(separator: " ")),
        ])
        guard response.isSuccess else {
            // glewlwyd answers a wrong password with an empty 403.
            if [400, 401, 403].contains(response.status) { throw .accessDenied }
            throw .refused(url: endpoint, status: response.status, error: Self.oauthError(response))
        }
        return try establish(try decode(response, endpoint))
    }

    /// Stores fresh tokens as the session, replacing any earlier one.
    private func establish(_ tokens: TokenResponse) throws(SessionError) -> PersistedSession {
        guard tokens.tokenType.lowercased() == "bearer" else {
            throw .malformed(url: configuration.issuer, detail: "token type \(tokens.tokenType) is not bearer")
        }
        let claims = try tokens.idToken.map(claims(of:))
        let session = PersistedSession(
            accessToken: tokens.accessToken, refreshToken: tokens.refreshToken, idToken: tokens.idToken,
            accessExpiresAt: tokens.lifetime.map { now() + $0 }, claims: claims, account: nil, invalidated: nil, updatedAt: now())
        do { try store.save(session) } catch { throw .configuration("cannot store the session: \(error)") }
        sessionChanged()
        return session
    }

    /// An ID token's checked claims (OIDC Core §3.1.3.7), at login and on every refresh.
    private func claims(of idToken: String) throws(SessionError) -> IDTokenClaims {
        try IDTokenClaims(token: idToken, issuer: metadata?.issuer ?? configuration.issuer, clientID: configuration.clientID, now: now())
    }

    /// After a login: fetch the account, store it, and only then report
    /// `authorized` (the recorder arms on that).
    @discardableResult
    public func completeLogin() async throws(SessionError) -> Account {
        let account = try await fetchAccount()
        sink.yield(.authorized)
        return account
    }

    // MARK: tokens

    /// An access token good for at least the refresh margin, refreshing first
    /// if needed. A token of unknown lifetime is used until the backend
    /// refuses it.
    public func accessToken() async throws(SessionError) -> String {
        guard let session = try current() else { throw .notLoggedIn }
        if let reason = session.invalidated { throw .notAuthorized(reason) }
        if let token = session.accessToken {
            guard let expires = session.accessExpiresAt else { return token }
            if expires - margin(session) > now() || refreshedRecently(session) { return token }
        }
        return try await refresh()
    }

    /// How long before expiry to refresh: the configured margin, but at most
    /// a fifth of the token's lifetime (short-lived tokens would otherwise be
    /// refreshed continuously).
    private func margin(_ session: PersistedSession) -> Double {
        min(configuration.refreshMargin, lifetime(session) / 5)
    }

    private func lifetime(_ session: PersistedSession) -> Double {
        max(0, (session.accessExpiresAt ?? session.updatedAt) - session.updatedAt)
    }

    /// Automatic refreshes (before expiry, after a 401) are spaced by at least
    /// `minimumRefreshInterval`, or half the token's lifetime if that is
    /// shorter, and never less than a second: a provider that hands out
    /// tokens of no lifetime cannot make the gateway refresh in a loop.
    private func refreshedRecently(_ session: PersistedSession) -> Bool {
        guard let last = lastRefresh else { return false }
        // A clock that jumped back lets the next refresh through.
        return (0..<refreshSpacing(session)).contains(now() - last)
    }

    private func refreshSpacing(_ session: PersistedSession) -> Double {
        let interval = configuration.minimumRefreshInterval
        return session.accessExpiresAt == nil ? interval : max(1, min(interval, lifetime(session) / 2))
    }

    /// When the last refresh was answered (wall clock), in this process.
    private var lastRefresh: Double?

    /// Refreshes now. Concurrent callers share one refresh.
    public func refresh() async throws(SessionError) -> String {
        if let refreshing { return try await refreshing.value.get() }
        // A task of its own, not the first caller's: that caller's
        // cancellation must not cancel the refresh the others wait on.
        let task = Task { await self.performRefresh() }
        refreshing = task
        let result = await task.value
        refreshing = nil
        lastRefresh = now()
        if case .success = result { sink.yield(.refreshed) }
        return try result.get()
    }

    private func performRefresh() async -> Result<String, SessionError> {
        do throws(SessionError) {
            guard let session = try current() else { throw .notLoggedIn }
            if let reason = session.invalidated { throw .notAuthorized(reason) }
            guard let refreshToken = session.refreshToken else {
                try invalidate(.expired)
                throw .notAuthorized(.expired)
            }
            // Set by a process that died with a refresh out: a one-use token
            // may already be spent.
            let diedInFlight = session.refreshStartedAt != nil
            guard try storeStep({ try store.beginRefresh(with: refreshToken, at: now()) }) else { throw try stillAuthorizedOrWhyNot() }
            Log.debug("session: refreshing the access token")
            let (response, endpoint) = try await tokenRequest([("grant_type", "refresh_token"), ("refresh_token", refreshToken)])
            if [400, 401, 403].contains(response.status) {
                // Revoked, expired or replayed; glewlwyd sends no body at all.
                let reason: AuthorizationEvent.Reason = diedInFlight ? .refreshRaceLost : .refreshRejected
                Log.warning("session: the provider refused the refresh token (\(response.status))"
                    + (diedInFlight ? ", after a refresh that a stopped process left in flight" : "") + "; a new login is needed")
                try invalidate(reason)
                throw .notAuthorized(reason)
            }
            guard response.isSuccess else {
                // Not cleared, the marker would make the next refresh look like one a stopped process left in flight.
                BestEffort.write("clear the session's refresh marker") { _ = try store.endRefresh(with: refreshToken) }
                throw .refused(url: endpoint, status: response.status, error: Self.oauthError(response))
            }
            let tokens: TokenResponse = try decode(response, endpoint)
            var refreshed = session
            refreshed.accessToken = tokens.accessToken
            refreshed.accessExpiresAt = tokens.lifetime.map { now() + $0 }
            // A rotating provider sends a new refresh token; it is stored in the same statement.
            if let rotated = tokens.refreshToken { refreshed.refreshToken = rotated }
            if let idToken = tokens.idToken {
                refreshed.claims = try claims(of: idToken)
                refreshed.idToken = idToken
            }
            refreshed.updatedAt = now()
            guard try storeStep({ try store.commitRefresh(from: refreshToken, to: refreshed) }) else {
                // A logout, lock or wipe came while the request was out: it
                // stands, and the tokens just issued are revoked.
                await revoke([(refreshed.refreshToken, "refresh_token"), (tokens.accessToken, "access_token")])
                throw try stillAuthorizedOrWhyNot()
            }
            sessionChanged()
            return .success(tokens.accessToken)
        } catch {
            return .failure(error)
        }
    }

    /// Why the stored session is not the one a refresh started from.
    private func stillAuthorizedOrWhyNot() throws(SessionError) -> SessionError {
        guard let session = try current() else { return .notLoggedIn }
        return .notAuthorized(session.invalidated ?? .loggedOut)
    }

    /// Keeps the session alive: sleeps on `clock` until the refresh margin
    /// before expiry, refreshes, repeats. A token of unknown lifetime is
    /// refreshed only when the backend refuses it, so this then waits for
    /// the session to change. Returns when the session stops being
    /// authorized or the task is cancelled. Network failures retry after
    /// `retry`.
    public func keepAlive<C: Clock>(clock: C, retry: Duration = .seconds(30)) async where C.Duration == Duration {
        while !Task.isCancelled {
            let seen = changes.current.generation
            let stored: PersistedSession?
            do {
                stored = try current()
            } catch {
                // A store that cannot be read for a moment (busy, an I/O error) is not a logout.
                Log.warning("session: \(error); reading it again in \(retry) to keep the session alive")
                do { try await clock.sleep(for: retry) } catch { return }
                continue
            }
            guard let session = stored, session.isAuthorized(now: now()) else { return }
            guard let expires = session.accessExpiresAt else {
                await changes.changed(since: seen)
                continue
            }
            var due = expires - margin(session) - now()
            if refreshedRecently(session), let last = lastRefresh { due = max(due, last + refreshSpacing(session) - now()) }
            if due > 0 {
                let delay = Duration.seconds(clamping: due, to: 0...Self.longestSleep) ?? .seconds(Self.longestSleep)
                do { try await clock.sleep(for: delay) } catch { return }
                // Years away (or 1e300): look at the store again after a day.
                if !(due <= Self.longestSleep) { continue }
            }
            do {
                _ = try await refresh()
            } catch .notAuthorized, .notLoggedIn {
                return
            } catch {
                Log.warning("session: refresh failed: \(error); retrying in \(retry)")
                do { try await clock.sleep(for: retry) } catch { return }
            }
        }
    }

    /// The longest single sleep in `keepAlive`: a stored expiry years away
    /// (or 1e300) is re-read daily instead of overflowing a duration.
    private static let longestSleep = 86_400.0

    /// This process's changes to the session (login, refresh, invalidation),
    /// counted by its generation, for `keepAlive` to wait on.
    private let changes = Watched(())

    private func sessionChanged() { changes.set(()) }

    // MARK: logout

    /// Revokes the tokens at the provider (best effort, RFC 7009) and clears
    /// the session. Succeeds offline. The only caller of the clearing function.
    public func logout() async {
        // Cleared first, and the tokens taken in the same transaction: a
        // refresh that lands while the provider is asked to revoke them
        // cannot store new tokens that nobody would revoke.
        let taken: (refreshToken: String?, accessToken: String?)?
        do {
            taken = try store.clearForLogout()
        } catch {
            Log.error("session: cannot clear the stored session: \(error)")
            taken = nil
        }
        sessionChanged()
        sink.yield(.notAuthorized(.loggedOut))
        if let taken { await revoke([(taken.refreshToken, "refresh_token"), (taken.accessToken, "access_token")]) }
    }

    /// Revokes tokens at the provider (RFC 7009), best effort: offline, this
    /// gives up after a few seconds, since logout must not hang on the network.
    private func revoke(_ tokens: [(String?, String)]) async {
        guard let endpoint = (try? await discover(timeout: .seconds(5)))?.revocationEndpoint else { return }
        let auth = clientAuthentication()
        for (token, hint) in tokens {
            guard let token else { continue }
            var request = HTTPRequest.form(endpoint, [("token", token), ("token_type_hint", hint)] + auth.fields, headers: auth.headers)
            request.timeout = .seconds(5)
            if let response = try? await http.send(request), !response.isSuccess {
                Log.notice("session: revoking the \(hint) got \(response.status)")
            }
        }
    }

    // MARK: backend

    /// Where samples go: the account's base URL, else the configured one.
    /// A stored account that no longer reads is an error, never a quiet
    /// fallback to the configured URL, which may be another fleet's.
    public func uploadBaseURL() throws(SessionError) -> String {
        let session = try current()
        if let problem = session?.accountProblem {
            throw .configuration("the stored account cannot be read (\(problem)): run waymark login --force")
        }
        return baseURL(of: session)
    }

    /// The account's base URL, else the configured one, without a trailing slash.
    private func baseURL(of session: PersistedSession?) -> String {
        let base = session?.account?.apiBaseURL ?? configuration.backendBaseURL
        return base.hasSuffix("/") ? String(base.dropLast()) : base
    }

    /// The fleet API base URL: the account's, else the configured one.
    public var apiBaseURL: String {
        baseURL(of: BestEffort.read("the session's account for the fleet's base URL; using the configured one", or: PersistedSession?.none) { try current() })
    }

    /// Sends a request built around a fresh bearer token. A 401 gets one
    /// refresh and one retry.
    public func authorized(_ build: @Sendable (String) -> HTTPRequest) async throws(SessionError) -> HTTPResponse {
        let response = try await send(build(try await accessToken()))
        guard response.status == 401 else { return response }
        // Refused: one refresh and one retry, unless a refresh was just made
        // (a backend refusing every token must not drive refreshes).
        if let session = try current(), refreshedRecently(session) { return response }
        return try await send(build(try await refresh()))
    }

    public func fetchAccount() async throws(SessionError) -> Account {
        let url = apiBaseURL + "/v1/account"
        let response = try await authorized { HTTPRequest(url: url, headers: [("Authorization", "Bearer " + $0), ("Accept", "application/json")]) }
        guard response.isSuccess else { throw .refused(url: url, status: response.status, error: nil) }
        let account: Account = try decode(response, url)
        if let problem = checkURL(account.apiBaseURL) { throw .malformed(url: url, detail: "api_base_url \(problem)") }
        guard try storeStep({ try store.setAccount(account, at: now()) }) else { throw .notLoggedIn }
        return account
    }

    /// Fetches the fleet's settings and stores them. Its commands (lock,
    /// wipe) are the `FleetPolicy`'s to apply.
    @discardableResult
    public func fetchSettings() async throws(SessionError) -> RemoteSettings {
        let url = apiBaseURL + "/v1/settings"
        let response = try await authorized { HTTPRequest(url: url, headers: [("Authorization", "Bearer " + $0), ("Accept", "application/json")]) }
        guard response.isSuccess else { throw .refused(url: url, status: response.status, error: nil) }
        let settings: RemoteSettings = try decode(response, url)
        for key in settings.ignored where ignoredSettings.insert(key).inserted {
            Log.warning("session: ignoring the fleet's \(key): not a number in range; the local config's value stands")
        }
        let previous = try? store.settings()
        do { try store.saveSettings(settings, at: now()) } catch { throw .configuration("cannot store remote settings: \(error)") }
        if previous != settings { sink.yield(.remoteSettingsUpdated) }
        return settings
    }

    /// The fleet locked this gateway: the session stops authorizing (its
    /// data is kept) until the next login.
    func lockedByFleet() throws(SessionError) {
        sink.yield(.policyUpdated)
        try invalidate(.lockedOut)
    }

    /// The fleet wiped this gateway's records, the session's among them.
    func wipedByFleet() {
        sink.yield(.policyUpdated)
        sink.yield(.notAuthorized(.wiped))
    }

    // MARK: helpers

    private func invalidate(_ reason: AuthorizationEvent.Reason) throws(SessionError) {
        guard try storeStep({ try store.invalidate(reason, at: now()) }) else { return }
        sessionChanged()
        sink.yield(.notAuthorized(reason))
    }

    /// One write to the session store, its error as a `SessionError`.
    private func storeStep(_ write: () throws -> Bool) throws(SessionError) -> Bool {
        do { return try write() } catch { throw .configuration("cannot store the session: \(error)") }
    }

    private func send(_ request: HTTPRequest) async throws(SessionError) -> HTTPResponse {
        do { return try await http.send(request) } catch { throw .unreachable(error) }
    }

    private func decode<T: Decodable>(_ response: HTTPResponse, _ url: String) throws(SessionError) -> T {
        do {
            return try OutsideJSON.decode(T.self, from: response.body)
        } catch {
            throw .malformed(url: String(url.prefix { $0 != "?" }), detail: "not the expected JSON")
        }
    }

    /// The `error` member of an OAuth error body, if there is one.
    static func oauthError(_ response: HTTPResponse) -> String? {
        (try? OutsideJSON.decode(OAuthErrorResponse.self, from: response.body))?.error
    }
}
