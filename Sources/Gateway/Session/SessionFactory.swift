import FoundationEssentials
internal import Glibc
import HTTP
import Logging
import Session

/// Builds the session manager from the config and the store: reads the client
/// secret file, and wires URL checks and the remote wipe.
enum SessionFactory {
    enum Problem: Error, CustomStringConvertible {
        case notConfigured(String)
        case secretFile(String, String)

        var description: String {
            switch self {
            case .notConfigured(let key): "[Session] \(key) is not set in the config; login needs it"
            case .secretFile(let path, let reason): "cannot read the client secret file \(path): \(reason)"
            }
        }
    }

    static func manager(_ configuration: Configuration, store: GatewayStore) throws(Problem) -> SessionManager {
        guard let issuer = configuration.session.issuer, !issuer.isEmpty else { throw .notConfigured("Issuer") }
        guard let clientID = configuration.session.clientID, !clientID.isEmpty else { throw .notConfigured("ClientId") }
        var secret: String?
        if let path = configuration.session.clientSecretFile, !path.isEmpty {
            guard let data = FileManager.default.contents(atPath: path) else { throw .secretFile(path, String(cString: strerror(errno))) }
            secret = String(decoding: data, as: UTF8.self).filter { !$0.isWhitespace }
            var info = stat()
            if stat(path, &info) == 0, info.st_mode & 0o077 != 0 {
                Log.warning("\(path) can be read by other users; chmod 600 it")
            }
        }
        let sessionConfiguration = SessionConfiguration(
            issuer: issuer, clientID: clientID, clientSecret: secret, scopes: configuration.session.scopes,
            backendBaseURL: configuration.backend.baseURL ?? "")
        return SessionManager(
            configuration: sessionConfiguration, store: SessionStore(database: store.database),
            http: HTTPClient(caFile: configuration.session.caFile),
            checkURL: { EndpointURL.validate($0) },
            wipe: { try store.eraseAll() })
    }
}
