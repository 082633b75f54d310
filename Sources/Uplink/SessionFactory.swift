package import Config
import FoundationEssentials
import Glibc
import HTTP
import Logging
package import Session
package import Store

/// Builds the session manager from the config and the store (reads the
/// client secret file, wires URL checks), and the fleet's policy over it
/// (wires the remote wipe).
package enum SessionFactory {
    package enum Problem: Error, CustomStringConvertible {
        case notConfigured(String)
        case secretFile(SecretFile.Problem)

        package var description: String {
            switch self {
            case .notConfigured(let key): "[Session] \(key) is not set in the config; login needs it"
            case .secretFile(let problem): "the client secret file: \(problem)"
            }
        }
    }

    /// The session manager, with the fleet's policy over it (a wipe erases the store).
    package static func policy(_ configuration: Configuration, store: GatewayStore) throws(Problem) -> FleetPolicy {
        FleetPolicy(session: try manager(configuration, store: store), wipe: { try store.eraseAll() })
    }

    package static func manager(_ configuration: Configuration, store: GatewayStore) throws(Problem) -> SessionManager {
        guard let issuer = configuration.session.issuer, !issuer.isEmpty else { throw .notConfigured("Issuer") }
        guard let clientID = configuration.session.clientID, !clientID.isEmpty else { throw .notConfigured("ClientId") }
        var secret: String?
        if let path = configuration.session.clientSecretFile, !path.isEmpty {
            do { secret = try SecretFile.read(path) } catch { throw .secretFile(error) }
        }
        let sessionConfiguration = SessionConfiguration(
            issuer: issuer, clientID: clientID, clientSecret: secret, scopes: configuration.session.scopes,
            backendBaseURL: configuration.backend.baseURL ?? "")
        return SessionManager(
            configuration: sessionConfiguration, store: SessionStore(database: store.database),
            http: HTTPClient(caFile: configuration.session.caFile))
    }
}
