import Foundation
import PeerHarness
import Session
import Storage

/// glewlwyd, the backend, and a session manager over a fresh store.
struct SessionRig {
    let directory: TemporaryDirectory
    let provider: Glewlwyd
    let backend: IngestServer
    let database: Database
    let manager: SessionManager

    init(accessTokenSeconds: Int = 3600, oneUseRefresh: Bool = false) throws {
        directory = try TemporaryDirectory("waymark-session")
        provider = try Glewlwyd(directory: directory, accessTokenSeconds: accessTokenSeconds, oneUseRefresh: oneUseRefresh)
        backend = try IngestServer(directory: directory)
        database = try Self.openStore(directory)
        manager = Self.manager(database: database, provider: provider, backend: backend)
    }

    static func openStore(_ directory: TemporaryDirectory) throws -> Database {
        try Database(path: directory.file("data/waymark.db"), migrations: Migration.numbered([SessionStore.schema] + SessionStore.changes))
    }

    /// A manager as a new process would build it, over the same store.
    static func manager(database: Database, provider: Glewlwyd, backend: IngestServer) -> SessionManager {
        Glewlwyd.sessionManager(issuer: provider.issuer, backend: backend.baseURL, database: database)
    }

    func stop() {
        provider.stop()
        backend.stop()
        directory.remove()
    }
}
