import HTTP
public import Session
public import Storage

extension Glewlwyd {
    /// A session manager for the provider at `issuer` and its confidential
    /// client, over `database`, built as a gateway process builds one.
    public static func sessionManager(issuer: String, backend: String, database: Database) -> SessionManager {
        SessionManager(
            configuration: SessionConfiguration(issuer: issuer, clientID: clientID, clientSecret: clientSecret,
                                                scopes: ["openid", "waymark"], backendBaseURL: backend),
            store: SessionStore(database: database), http: HTTPClient())
    }
}
