package import Command
import Glibc
import Logging
import Storage
package import Store

/// How every command opens the store: the same checks, messages and exit
/// codes everywhere. Commands that only read never create a store.
package enum StoreAccess {
    package enum Opened {
        case store(GatewayStore)
        /// There is no store yet, and the command does not create one.
        case absent
        /// Already reported on stderr; exit with this.
        case failed(ExitCode)
    }

    package static func open(_ invocation: Invocation, for command: String, create: Bool = true) -> Opened {
        let path = invocation.storePath
        guard create || Database.exists(at: path) else { return .absent }
        do {
            let store = try GatewayStore(path: path, create: create)
            if let aside = store.database.movedAside {
                Log.warning("\(command): the store was damaged; moved it to \(aside) and started a fresh one")
            }
            return .store(store)
        } catch {
            Log.error("\(command): cannot open the store \(path): \(error)")
            return .failed(exitCode(for: error))
        }
    }

    /// The store of a command that has nothing to do without one: with no
    /// store, `absent` is said on stderr and the command exits 65.
    package static func existing(_ invocation: Invocation, for command: String, absent: @autoclosure () -> String) throws(ExitCode) -> GatewayStore {
        switch open(invocation, for: command, create: false) {
        case .store(let store): return store
        case .absent:
            Log.error("\(command): \(absent())")
            throw .dataError
        case .failed(let code): throw code
        }
    }

    /// sysexits(3) for a store that cannot be used: 77 for permissions and
    /// ownership, 78 for a store from a newer Waymark that this one may not
    /// use (a rollback's case), 74 for an I/O problem, 73 when it cannot be created.
    package static func exitCode(for error: any Error) -> ExitCode {
        guard let error = error as? StorageError else { return .software }
        switch error {
        case .fileSystem(_, _, let code) where code == EACCES || code == EPERM: return .noPermission
        case .notOwned, .refused: return .noPermission
        case .sqlite(let code, _, _) where code & 0xff == 8: return .noPermission // SQLITE_READONLY
        case .fileSystem: return .cannotCreate
        case .newerSchema: return .config
        default: return .ioError
        }
    }
}
