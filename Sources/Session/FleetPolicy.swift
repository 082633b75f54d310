import Logging

/// The fleet's commands, apart from the session that fetches them: a
/// `lock` stops the session authorizing (data kept) until the next login, a
/// `wipe` deletes every local record. Each is applied once: the store
/// records it as applied, and a command whose record cannot be written is
/// applied unless the store says it was before (a lock or a wipe is never
/// skipped for a write error).
public struct FleetPolicy: Sendable {
    public let session: SessionManager
    /// Deletes every local record on a remote wipe (the session's own tables included).
    let wipe: @Sendable () throws -> Void

    public init(session: SessionManager, wipe: @escaping @Sendable () throws -> Void) {
        self.session = session
        self.wipe = wipe
    }

    /// Fetches the settings (stored by the session) and applies new commands.
    @discardableResult
    public func update() async throws(SessionError) -> RemoteSettings {
        let settings = try await session.fetchSettings()
        try await apply(settings.commands)
        return settings
    }

    /// Applies each command not applied before, in order; nothing after a wipe.
    public func apply(_ commands: [RemoteSettings.Command]) async throws(SessionError) {
        for command in commands where isNew(command) {
            switch command.type {
            case .lock:
                Log.notice("session: locked by the fleet (command \(command.id)); recording stops until the next login")
                try await session.lockedByFleet()
            case .wipe:
                Log.notice("session: wiped by the fleet (command \(command.id)); deleting tokens and local data")
                do { try wipe() } catch { Log.error("session: wipe failed: \(error)") }
                await session.wipedByFleet()
                return
            }
        }
    }

    /// Whether `command` is to be applied now, and recorded as applied.
    private func isNew(_ command: RemoteSettings.Command) -> Bool {
        let store = session.store
        do {
            return try store.markApplied(command, at: session.now())
        } catch {
            let before = (try? store.isApplied(command)) ?? false
            Log.error("session: cannot record the fleet's \(command.type.rawValue) command \(command.id) as applied (\(error)); "
                      + (before ? "it was applied before" : "applying it, and recording it at the next fetch"))
            return !before
        }
    }
}
