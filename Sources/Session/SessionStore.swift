internal import FoundationEssentials
public import Storage

/// The persisted session, in the gateway's SQLite store (a 0600 file under a
/// 0700 directory). Every write is one statement in one transaction, so a
/// rotated refresh token is either stored whole or not at all.
///
/// Only a login writes a whole session. Every later write (a refresh, the
/// account, a lock) is a compare-and-swap on the row as it was read, so a
/// logout, lock or wipe that lands while a refresh is in flight is never
/// undone by it.
public struct SessionStore: Sendable {
    public let database: Database

    /// The tables, for the store's migration list.
    public static let schema = """
        CREATE TABLE session (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            access_token TEXT,
            refresh_token TEXT,
            id_token TEXT,
            access_expires_at REAL,
            claims TEXT,          -- JSON: sub, name, email, iss, aud, exp
            account TEXT,         -- JSON: user_id, vehicle_id, api_base_url
            invalidated TEXT,     -- reason, while not authorized
            updated_at REAL NOT NULL
        );
        CREATE TABLE remote_settings (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            json TEXT NOT NULL,
            fetched_at REAL NOT NULL
        );
        CREATE TABLE applied_command (id TEXT PRIMARY KEY, type TEXT NOT NULL, applied_at REAL NOT NULL);
        """

    /// The later steps of the session's tables, in order, after `schema`.
    public static let changes = [
        // Set before a refresh request and cleared by its answer: found set
        // at start-up, a one-use refresh token may have been spent by a
        // process that died before storing its successor.
        "ALTER TABLE session ADD COLUMN refresh_started_at REAL;",
    ]

    public init(database: Database) {
        self.database = database
    }

    public func load() throws -> PersistedSession? {
        try database.read { connection in
            try connection.rows("""
                SELECT access_token, refresh_token, id_token, access_expires_at, claims, account, invalidated, updated_at,
                       refresh_started_at
                FROM session WHERE id = 1
                """) { row in
                var account: Account?, accountProblem: String?
                if let text = row.text(5) {
                    do { account = try JSONDecoder().decode(Account.self, from: Data(text.utf8)) } catch { accountProblem = "\(error)" }
                }
                return PersistedSession(
                    accessToken: row.text(0), refreshToken: row.text(1), idToken: row.text(2),
                    accessExpiresAt: row.isNull(3) ? nil : row.real(3),
                    claims: row.text(4).flatMap { try? JSONDecoder().decode(IDTokenClaims.self, from: Data($0.utf8)) },
                    account: account, accountProblem: accountProblem,
                    invalidated: row.text(6).flatMap(AuthorizationEvent.Reason.init(rawValue:)),
                    updatedAt: row.real(7), refreshStartedAt: row.isNull(8) ? nil : row.real(8))
            }.first
        }
    }

    /// A login: stores the whole session, replacing any earlier one.
    func save(_ session: PersistedSession) throws {
        let claims = try session.claims.map { String(decoding: try JSONEncoder().encode($0), as: UTF8.self) }
        let account = try session.account.map { String(decoding: try JSONEncoder().encode($0), as: UTF8.self) }
        try database.write { connection in
            try connection.run("""
                INSERT OR REPLACE INTO session
                    (id, access_token, refresh_token, id_token, access_expires_at, claims, account, invalidated, updated_at)
                VALUES (1, ?, ?, ?, ?, ?, ?, ?, ?)
                """, [Self.text(session.accessToken), Self.text(session.refreshToken), Self.text(session.idToken),
                      session.accessExpiresAt.map { .real($0) } ?? .null, Self.text(claims), Self.text(account),
                      Self.text(session.invalidated?.rawValue), .real(session.updatedAt)])
        }
    }

    /// Notes that a refresh with `refreshToken` is about to be sent; false if
    /// the session is no longer the one holding that token.
    func beginRefresh(with refreshToken: String, at time: Double) throws -> Bool {
        try whereCurrent(refreshToken, "refresh_started_at = ?", [.real(time)])
    }

    /// Stores refreshed tokens, if the session still holds `oldRefreshToken`
    /// and is still authorized; false if a logout, lock or wipe came first.
    func commitRefresh(from oldRefreshToken: String, to session: PersistedSession) throws -> Bool {
        try whereCurrent(oldRefreshToken, """
            access_token = ?, refresh_token = ?, id_token = ?, access_expires_at = ?, updated_at = ?, refresh_started_at = NULL
            """, [Self.text(session.accessToken), Self.text(session.refreshToken), Self.text(session.idToken),
                  session.accessExpiresAt.map { .real($0) } ?? .null, .real(session.updatedAt)])
    }

    /// The provider answered a refresh without new tokens (a server error):
    /// the token was not spent.
    func endRefresh(with refreshToken: String) throws {
        _ = try whereCurrent(refreshToken, "refresh_started_at = NULL", [])
    }

    /// Marks the session not authorized, unless it already is (or is gone).
    func invalidate(_ reason: AuthorizationEvent.Reason, at time: Double) throws -> Bool {
        try database.write { connection in
            try connection.run("""
                UPDATE session SET invalidated = ?, updated_at = ?, refresh_started_at = NULL WHERE id = 1 AND invalidated IS NULL
                """, [.text(reason.rawValue), .real(time)])
            return connection.changes == 1
        }
    }

    /// Stores the account on the session there is; never creates one.
    func setAccount(_ account: Account, at time: Double) throws -> Bool {
        let json = String(decoding: try JSONEncoder().encode(account), as: UTF8.self)
        return try database.write { connection in
            try connection.run("UPDATE session SET account = ?, updated_at = ? WHERE id = 1", [.text(json), .real(time)])
            return connection.changes == 1
        }
    }

    /// `UPDATE session SET <assignments>` on the row holding `refreshToken`, while authorized.
    private func whereCurrent(_ refreshToken: String, _ assignments: String, _ values: [SQLValue]) throws -> Bool {
        try database.write { connection in
            try connection.run("UPDATE session SET \(assignments) WHERE id = 1 AND refresh_token = ? AND invalidated IS NULL",
                               values + [.text(refreshToken)])
            return connection.changes == 1
        }
    }

    private static func text(_ value: String?) -> SQLValue { value.map { .text($0) } ?? .null }

    /// Deletes the session. Called from exactly one place, `SessionManager.logout()`.
    /// Clears the session and returns the tokens it held, in one
    /// transaction: a refresh that commits after it finds no session (its
    /// compare-and-swap fails), and one that committed before it had its
    /// tokens taken here, to be revoked.
    @discardableResult
    func clearForLogout() throws -> (refreshToken: String?, accessToken: String?) {
        try database.write { connection in
            let tokens = try connection.rows("SELECT refresh_token, access_token FROM session WHERE id = 1") { ($0.text(0), $0.text(1)) }.first
            try connection.run("DELETE FROM session")
            return tokens ?? (nil, nil)
        }
    }

    public func settings() throws -> RemoteSettings? {
        try database.read { connection in
            try connection.rows("SELECT json FROM remote_settings WHERE id = 1") { row in
                row.text(0).flatMap { try? JSONDecoder().decode(RemoteSettings.self, from: Data($0.utf8)) }
            }.first ?? nil
        }
    }

    func saveSettings(_ settings: RemoteSettings, at time: Double) throws {
        let json = String(decoding: try JSONEncoder().encode(settings), as: UTF8.self)
        try database.write { connection in
            try connection.run("INSERT OR REPLACE INTO remote_settings (id, json, fetched_at) VALUES (1, ?, ?)", [.text(json), .real(time)])
        }
    }

    /// Whether a command was recorded as applied.
    func isApplied(_ command: RemoteSettings.Command) throws -> Bool {
        try database.read { try $0.scalar("SELECT count(*) FROM applied_command WHERE id = ?", [.text(command.id)])?.integer == 1 }
    }

    /// Records a command as applied; false if it already was.
    func markApplied(_ command: RemoteSettings.Command, at time: Double) throws -> Bool {
        try database.write { connection in
            try connection.run("INSERT OR IGNORE INTO applied_command (id, type, applied_at) VALUES (?, ?, ?)",
                               [.text(command.id), .text(command.type.rawValue), .real(time)])
            return connection.changes == 1
        }
    }
}
