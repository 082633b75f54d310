import BlueZ
import DBus

extension BlueZScanner {
    /// Starts the scanner and runs its loops, as a service would, until `stop()`.
    func startRunning() async throws(DBusError) {
        try await start()
        Task { await self.run() }
    }
}
